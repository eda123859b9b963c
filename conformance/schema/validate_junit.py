"""Validates JUnit XML reports against the vendored junit-10.xsd (the Jenkins schema).

Usage: python validate_junit.py REPORT.xml...   (exit 1 naming the first error of each bad file)
Needs the pinned `xmlschema` from .ci/requirements.txt.
"""
import pathlib
import sys

import xmlschema

SCHEMA = xmlschema.XMLSchema10(pathlib.Path(__file__).with_name("junit-10.xsd"))
bad = 0
for path in sys.argv[1:]:
    errors = list(SCHEMA.iter_errors(path))
    if errors:
        bad += 1
        print(f"{path}: {len(errors)} schema error(s); first: {errors[0].reason} at {errors[0].path}")
    else:
        print(f"{path}: valid against junit-10.xsd")
sys.exit(1 if bad or not sys.argv[1:] else 0)
