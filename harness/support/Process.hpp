// The one way ptxmm runs an external program (ptxas, cuobjdump, dot): an argument vector, never a
// shell command line, so file names need no quoting; stdout and stderr captured apart; an optional
// time limit after which the program and its children are killed.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace ptxmm {

/// How runProcess runs a program.
struct ProcessOptions {
  std::optional<std::string> input;      ///< written to the program's stdin, then closed (none: /dev/null)
  std::chrono::milliseconds timeout{0};  ///< kill the program after this long (0: wait as long as it runs)
};

/// What happened to a program runProcess started (or could not start).
struct ProcessResult {
  std::string program;                   ///< argv[0] as given, for messages
  std::string spawnError;                ///< why it could not be started ("No such file or directory"); empty if it ran
  int exitCode = -1;                     ///< its exit status when it exited by itself, else -1
  int signal = 0;                        ///< the signal that ended it (SIGKILL after a timeout), else 0
  bool timedOut = false;                 ///< it ran past the time limit and was killed
  std::chrono::milliseconds timeout{0};  ///< the limit it ran under (for messages)
  std::string out;                       ///< everything it wrote to stdout
  std::string err;                       ///< everything it wrote to stderr

  /// It started, exited by itself with status 0 and did not time out.
  [[nodiscard]] bool ok() const { return spawnError.empty() && !timedOut && signal == 0 && exitCode == 0; }

  /// Empty if ok(); else one message naming the program: "cannot run dot: No such file or directory",
  /// "ptxas timed out after 300 s", "ptxas exited with status 255: <its stderr>", "dot was killed by
  /// signal 11 (Segmentation fault): <its stderr>".
  [[nodiscard]] std::string error() const;
};

/// Runs argv[0] (looked up on $PATH unless it contains a '/') with the arguments argv[1..], without a
/// shell, in its own process group. Reads stdout and stderr as they come (neither pipe can fill up and
/// block the program) while feeding `input`. On timeout SIGKILLs the whole process group. Never
/// throws for a program that is missing or fails: see ProcessResult::spawnError and error(). Safe to
/// call from several threads at once.
[[nodiscard]] ProcessResult runProcess(const std::vector<std::string>& argv, const ProcessOptions& options = {});

/// The path of the executable `name` as runProcess would find it ($PATH, or `name` itself if it
/// contains a '/'), or nullopt if there is none. Replaces the shell's `command -v`.
[[nodiscard]] std::optional<std::string> findProgram(const std::string& name);

/// `argv` as one line for messages and logs, each word single-quoted when it holds anything but
/// letters, digits and -_./=:+, (for reading; never run through a shell).
[[nodiscard]] std::string commandLine(const std::vector<std::string>& argv);

}  // namespace ptxmm
