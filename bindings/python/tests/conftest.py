# The tests import the package from this source tree (bindings/python/ptc);
# PTC_LIBRARY names the library to load (ctest python_tests sets it).
# With PTC_TEST_INSTALLED=1 (ctest python_wheel_tests, in a venv the wheel
# was installed into) they import the installed package instead, and stop if
# that is this tree's: the point is to test what pip installed.
import os
import pathlib
import sys

_bindings = pathlib.Path(__file__).resolve().parents[1]

if os.environ.get("PTC_TEST_INSTALLED") == "1":
    import ptc

    if pathlib.Path(ptc.__file__).resolve().is_relative_to(_bindings):
        raise RuntimeError(f"PTC_TEST_INSTALLED=1 but ptc was imported from the source tree "
                           f"({ptc.__file__}): run from outside it, without PYTHONPATH")
else:
    sys.path.insert(0, str(_bindings))
