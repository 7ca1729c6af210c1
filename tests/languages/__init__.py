import pytest

# The shared tests of _common.py run in every language's module: their asserts get pytest's reports too.
pytest.register_assert_rewrite("tests.languages._common")
