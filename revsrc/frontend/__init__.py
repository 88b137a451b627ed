"""Python source to IR: parse, fence, lower (names resolved, helpers inlined), control.

Imports revsrc.core, revsrc.runtime and revsrc.primitives (the lookup), never the passes."""
