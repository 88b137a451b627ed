"""The scalar engine: IR to engine instructions (lower), their peephole pass and
assembly into code words (peephole), and the native C tier (native)."""
