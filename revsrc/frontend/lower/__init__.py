"""The lowering of a function's ``ast`` to the IR. Its one entry is
`lowerer.Lowerer`; the other modules are its parts, by concern (lowerer.py lists
them), and the values (values.py) and scope (scope.py) they share."""
