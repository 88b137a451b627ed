"""The lowest layer: the IR, its traversal, the kinds encoding, the namer and pytrees.

Imports nothing from revsrc outside this package and revsrc.errors."""
