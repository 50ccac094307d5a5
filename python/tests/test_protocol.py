"""The protocol loop (bcast_suite.protocol.serve) driven through fake stdin and stdout."""

import contextlib
import io
import json
import sys
import unittest

from bcast_suite.protocol import PROTOCOL, Unsupported, serve

CAPS = {"ops": ["Tensor.numel"], "dtypes": ["int64"], "levels": ["shapes", "values"]}


def converse(run_case, requests):
    """Serves `requests` (objects, or raw lines) and returns the answers as objects, and stderr."""
    lines = "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in requests)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err):
        serve("fake", CAPS, run_case, stdin=io.StringIO(lines), stdout=out)
    return [json.loads(line) for line in out.getvalue().splitlines()], err.getvalue()


def numel(case):
    n = 1
    for d in case["tensors"]["x"]["shape"]:
        n *= d
    return {"ok": {"result": {"int": n}}}


def request(rid, shape):
    return {"id": rid, "case": {"id": f"c{rid}", "tensors": {"x": {"shape": shape}}}}


class Protocol(unittest.TestCase):
    def test_hello_first_then_one_answer_per_request_in_order(self):
        answers, _ = converse(numel, [request(0, [2, 3]), "", "   ", request(7, [])])
        self.assertEqual(answers[0], {"hello": {"name": "fake", "protocol": PROTOCOL, "capabilities": CAPS}})
        self.assertEqual(answers[1:], [{"id": 0, "outcome": {"ok": {"result": {"int": 6}}}},
                                       {"id": 7, "outcome": {"ok": {"result": {"int": 1}}}}])

    def test_no_request_gives_the_hello_alone(self):
        answers, _ = converse(numel, [])
        self.assertEqual(len(answers), 1)
        self.assertIn("hello", answers[0])

    def test_unsupported_fails_the_case_with_its_reason(self):
        def refuse(case):
            raise Unsupported("no such op here")
        answers, _ = converse(refuse, [request(1, [1])])
        self.assertEqual(answers[1], {"id": 1, "failure": "no such op here"})

    def test_a_bug_fails_its_case_only_and_names_where_it_happened(self):
        def buggy(case):
            if case["id"] == "c1":
                raise KeyError("shape")
            return numel(case)
        answers, _ = converse(buggy, [request(1, [2]), request(2, [2])])
        self.assertTrue(answers[1]["failure"].startswith("KeyError: 'shape' (at "), answers[1])
        self.assertIn("test_protocol.py:", answers[1]["failure"])
        self.assertEqual(answers[2], {"id": 2, "outcome": {"ok": {"result": {"int": 2}}}})

    def test_an_outcome_that_is_not_strict_json_is_a_failure(self):
        answers, _ = converse(lambda case: {"ok": {"result": {"float": float("nan")}}}, [request(3, [])])
        self.assertEqual(answers[1]["id"], 3)
        self.assertIn("ValueError", answers[1]["failure"])

    def test_prints_of_the_adapter_go_to_stderr_and_stdout_comes_back(self):
        def chatty(case):
            print("debugging")
            return numel(case)
        before = sys.stdout
        answers, err = converse(chatty, [request(4, [3])])
        self.assertEqual(len(answers), 2)
        self.assertIn("debugging", err)
        self.assertIs(sys.stdout, before)


if __name__ == "__main__":
    unittest.main()
