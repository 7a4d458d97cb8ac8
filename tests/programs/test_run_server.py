"""The sanitizer build's run server (src/program/run_server.hpp) against the
program started on its own: for each command line, the same exit status, the
same stdout and the same stderr, byte for byte; and no run sees what the one
before it was given. Every program test of the sanitizer build runs through
the server, so this is what makes those tests tests of the program."""
import unittest

from harness import PROGRAM, USE_RUN_SERVER, serve, start_program

COMMAND_LINES = [
    [],
    ["--json"],
    ["--help"],
    ["--q", "1,0;0,1", "--k", "2,0;0,3", "--json"],
    ["--q", "1, 0; 0, 1", "--k", "1,1;1,1"],  # spaces inside one argument
    ["--q", "x?"],
    ["--q", ""],  # an empty argument
    ["--q", "é,1;0,1"],  # not ASCII
    ["--no-such-flag"],
    ["stray"],
    ["--json", "--json"],
]


class RunServer(unittest.TestCase):
    def test_served_runs_are_runs_of_the_program(self):
        if not USE_RUN_SERVER:
            self.skipTest("only the sanitizer build's programs serve runs")
        for arguments in COMMAND_LINES:
            with self.subTest(arguments=arguments):
                alone = start_program(PROGRAM, arguments)
                served = serve(PROGRAM, arguments)
                self.assertEqual((served.returncode, served.stdout, served.stderr),
                                 (alone.returncode, alone.stdout, alone.stderr))

    def test_a_run_starts_from_the_defaults(self):
        if not USE_RUN_SERVER:
            self.skipTest("only the sanitizer build's programs serve runs")
        serve(PROGRAM, ["--q", "1,0;0,1", "--k", "2,0;0,3", "--json"])
        alone = start_program(PROGRAM, ["--json"])
        self.assertEqual(serve(PROGRAM, ["--json"]).stdout, alone.stdout)


if __name__ == "__main__":
    unittest.main()
