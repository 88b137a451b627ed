"""The scalar engine: IR to engine instructions (lower), and the native C tier."""
