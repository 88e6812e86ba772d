# Tests.
