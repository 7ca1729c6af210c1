func test_arguments_are_passed_verbatim() throws {
    let result = try runExecutable("/bin/echo", arguments: ["hello", "  spaced  world", "$HOME", "'q'"])
    try expectEqual(result, ProcessOutput(stdout: "hello   spaced  world $HOME 'q'\n", stderr: "", exitCode: 0))
}

func test_stdout_stderr_and_exit_code_are_separate() throws {
    let result = try runExecutable("/bin/sh", arguments: ["-c", "echo out; echo err 1>&2; exit 3"])
    try expectEqual(result.stdout, "out\n")
    try expectEqual(result.stderr, "err\n")
    try expectEqual(result.exitCode, 3)
}

func test_input_is_fed_to_stdin() throws {
    let result = try runExecutable("/bin/cat", input: "line 1\nline 2 ✓\n")
    try expectEqual(result, ProcessOutput(stdout: "line 1\nline 2 ✓\n", stderr: "", exitCode: 0))
    let empty = try runExecutable("/bin/cat")
    try expectEqual(empty, ProcessOutput(stdout: "", stderr: "", exitCode: 0))
}

func test_signal_and_missing_executable() throws {
    let killed = try runExecutable("/bin/sh", arguments: ["-c", "kill -TERM $$"])
    try expectEqual(killed.exitCode, 143)
    try expectThrows(try runExecutable("/nonexistent/assay-no-such-tool", arguments: ["x"]))
}

func test_large_output_on_both_streams() throws {
    let script = """
    i=0
    while [ $i -lt 3000 ]; do
      echo 0123456789012345678901234567890123456789012345678901234567890123456789
      echo E123456789012345678901234567890123456789012345678901234567890123456789 1>&2
      i=$((i+1))
    done
    """
    let result = try runExecutable("/bin/sh", arguments: ["-c", script])
    try expectEqual(result.exitCode, 0)
    try expectEqual(result.stdout.utf8.count, 3000 * 71)
    try expectEqual(result.stderr.utf8.count, 3000 * 71)
    try expect(result.stderr.hasPrefix("E1234"), "stderr has the stderr lines")
}
