"""The lowering of a function's ``ast`` to the IR, by concern: the static values it
keeps (values), the scope of the function being lowered (scope)."""
