#!/usr/bin/env python3
"""Counts test cases over a `bazel test` run and prints "N passed, N failed".

Every test writes JUnit XML (GoogleTest per test case, the shell tests per
check through tests/lib/testlib.sh). A target Bazel reports as failed whose
XML shows no failed case (it crashed, timed out, or never wrote its XML)
counts as one more failure, so nothing fails silently.

usage: count_tests.py BAZEL_TESTLOGS BAZEL_OUTPUT_LOG
"""
import os
import re
import sys
import xml.etree.ElementTree as ET


def cases(xml_path):
    passed = failed = 0
    try:
        root = ET.parse(xml_path).getroot()
    except (ET.ParseError, OSError):
        return 0, 1
    for case in root.iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            failed += 1
        elif case.find("skipped") is not None or case.get("status") == "notrun":
            continue  # a skipped test counts for nothing
        else:
            passed += 1
    return passed, failed


def main():
    testlogs, log_path = sys.argv[1], sys.argv[2]
    status = {}
    with open(log_path, errors="replace") as log:
        for line in log:
            m = re.match(r"^(//\S+)\s+(?:\(cached\)\s+)?(PASSED|FAILED|TIMEOUT|FLAKY|NO STATUS|FAILED TO BUILD|INCOMPLETE)", line)
            if m:
                status[m.group(1)] = m.group(2)
    total_passed = total_failed = 0
    for target in sorted(status):
        rel = target[2:].replace(":", "/")
        xml_path = os.path.join(testlogs, rel, "test.xml")
        passed, failed = cases(xml_path) if os.path.exists(xml_path) else (0, 0)
        if status[target] != "PASSED" and failed == 0:
            failed = 1
        print(f"{target}: {status[target]}, {passed} passed, {failed} failed")
        total_passed += passed
        total_failed += failed
    if not status:
        total_failed = 1
        print("no test results found")
    print(f"{total_passed} passed, {total_failed} failed")
    return 1 if total_failed else 0


if __name__ == "__main__":
    sys.exit(main())
