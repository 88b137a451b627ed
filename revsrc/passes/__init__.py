"""IR to IR: the pipeline's stages after lowering (views, containers, kinds and
activity, reverse, jvp, optimize)."""
