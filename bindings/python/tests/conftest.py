# The tests import the package from this source tree (bindings/python/ptc);
# PTC_LIBRARY names the library to load (ctest python_tests sets it).
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
