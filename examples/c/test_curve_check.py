#!/usr/bin/env python3
"""Which locus curve_check.py runs when --locus is not given (issue 50 item 9): $LOCUS_BINARY,
else a build in the checkout, else `locus` on PATH; none of them is an error naming --locus.
Run: python3 examples/c/test_curve_check.py (make test does)."""

import os
import stat
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import curve_check  # noqa: E402


def executable(path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("#!/bin/sh\n")
    os.chmod(path, stat.S_IRWXU)
    return path


class FindLocusTests(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.repo = os.path.join(self.tmp.name, "repo")
        self.bin = os.path.join(self.tmp.name, "bin")
        os.makedirs(self.repo)

    def tearDown(self):
        self.tmp.cleanup()

    def test_on_path_when_the_checkout_has_no_build(self):
        on_path = executable(os.path.join(self.bin, "locus"))
        self.assertEqual(curve_check.find_locus({"PATH": self.bin}, self.repo), on_path)

    def test_a_release_build_of_the_checkout_before_path(self):
        executable(os.path.join(self.bin, "locus"))
        release = executable(os.path.join(self.repo, ".build-release", "release", "locus"))
        self.assertEqual(curve_check.find_locus({"PATH": self.bin}, self.repo), release)

    def test_debug_build_first_and_the_environment_above_all(self):
        debug = executable(os.path.join(self.repo, ".build", "debug", "locus"))
        executable(os.path.join(self.repo, ".build-release", "release", "locus"))
        self.assertEqual(curve_check.find_locus({"PATH": self.bin}, self.repo), debug)
        self.assertEqual(curve_check.find_locus({"PATH": self.bin, "LOCUS_BINARY": "/x/locus"}, self.repo), "/x/locus")

    def test_none_found(self):
        self.assertIsNone(curve_check.find_locus({"PATH": self.bin}, self.repo))


if __name__ == "__main__":
    unittest.main()
