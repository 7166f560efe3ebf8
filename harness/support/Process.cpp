#include "support/Process.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <thread>

extern char** environ;  // NOLINT: POSIX declares it nowhere else

namespace ptxmm {
namespace {

using Clock = std::chrono::steady_clock;

/// A file descriptor closed when it goes out of scope.
class Fd {
 public:
  Fd() = default;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }

  [[nodiscard]] int get() const { return fd_; }
  [[nodiscard]] bool open() const { return fd_ >= 0; }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

/// A close-on-exec pipe whose ends are not 0, 1 or 2 (if the caller closed its standard streams,
/// pipe2 could hand those out, and dup2 onto the same number would keep close-on-exec set).
bool makePipe(Fd& readEnd, Fd& writeEnd) {
  std::array<int, 2> fds{};
  if (pipe2(fds.data(), O_CLOEXEC) != 0) return false;
  for (int& fd : fds) {
    if (fd >= 3) continue;
    int moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    ::close(fd);
    fd = moved;
  }
  readEnd.reset(fds[0]);
  writeEnd.reset(fds[1]);
  return readEnd.open() && writeEnd.open();
}

void setNonBlocking(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

/// Blocks SIGPIPE on this thread while the child's stdin is written, so a child that exits without
/// reading all of it gives EPIPE instead of killing ptxmm; a SIGPIPE raised meanwhile is consumed.
class SigpipeGuard {
 public:
  SigpipeGuard() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    sigset_t pending;
    sigpending(&pending);
    wasPending_ = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  SigpipeGuard(const SigpipeGuard&) = delete;
  SigpipeGuard& operator=(const SigpipeGuard&) = delete;
  ~SigpipeGuard() {
    if (raised_ && !wasPending_) {
      timespec zero{};
      while (sigtimedwait(&pipe_, nullptr, &zero) < 0 && errno == EINTR) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  void raised() { raised_ = true; }

 private:
  sigset_t pipe_{};
  sigset_t old_{};
  bool wasPending_ = false;
  bool raised_ = false;
};

const char* signalName(int sig) {
  switch (sig) {
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGABRT: return "SIGABRT";
    case SIGILL: return "SIGILL";
    case SIGFPE: return "SIGFPE";
    case SIGPIPE: return "SIGPIPE";
    default: return nullptr;
  }
}

bool isExecutableFile(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

/// Waits for the child; with a deadline, SIGKILLs its group when the deadline passes first.
int reap(pid_t pid, std::optional<Clock::time_point> deadline, bool& timedOut) {
  int status = 0;
  if (deadline) {
    auto pause = std::chrono::microseconds(200);
    for (;;) {
      pid_t w = waitpid(pid, &status, WNOHANG);
      if (w == pid) return status;
      if (w < 0 && errno != EINTR) return status;
      if (Clock::now() >= *deadline) {
        timedOut = true;
        kill(-pid, SIGKILL);
        break;
      }
      std::this_thread::sleep_for(pause);
      pause = std::min<std::chrono::microseconds>(pause * 2, std::chrono::milliseconds(10));
    }
  }
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

}  // namespace

std::string ProcessResult::error() const {
  if (!spawnError.empty()) return fmt::format("cannot run {}: {}", program, spawnError);
  std::string what;
  if (timedOut)
    what = fmt::format("{} timed out after {:g} s", program, static_cast<double>(timeout.count()) / 1000.0);
  else if (signal != 0)
    what = signalName(signal) ? fmt::format("{} was killed by signal {} ({})", program, signal, signalName(signal))
                              : fmt::format("{} was killed by signal {}", program, signal);
  else if (exitCode != 0)
    what = fmt::format("{} exited with status {}", program, exitCode);
  else
    return "";
  // Some tools (ptxas among them) print their errors on stdout: show that when stderr is empty.
  std::string detail = err.find_first_not_of(" \t\r\n") == std::string::npos ? out : err;
  while (!detail.empty() && std::isspace(static_cast<unsigned char>(detail.back()))) detail.pop_back();
  if (!detail.empty()) what += (detail.find('\n') == std::string::npos ? ": " : ":\n") + detail;
  return what;
}

std::optional<std::string> findProgram(const std::string& name) {
  if (name.empty()) return std::nullopt;
  if (name.find('/') != std::string::npos) return isExecutableFile(name) ? std::optional(name) : std::nullopt;
  // The search posix_spawnp does: $PATH (an empty entry is the current directory), or the system
  // default path when $PATH is unset.
  const char* env = std::getenv("PATH");
  std::string path = env ? env : "/bin:/usr/bin";
  size_t begin = 0;
  for (;;) {
    size_t end = path.find(':', begin);
    std::string dir = path.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
    std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + name;
    if (isExecutableFile(candidate)) return candidate;
    if (end == std::string::npos) return std::nullopt;
    begin = end + 1;
  }
}

std::string commandLine(const std::vector<std::string>& argv) {
  std::string line;
  for (const auto& a : argv) {
    if (!line.empty()) line += ' ';
    bool plain = !a.empty() && a.find_first_not_of(
                                   "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                   "-_./=:+,") == std::string::npos;
    if (plain) {
      line += a;
      continue;
    }
    line += '\'';
    for (char c : a) line += c == '\'' ? std::string("'\\''") : std::string(1, c);
    line += '\'';
  }
  return line;
}

ProcessResult runProcess(const std::vector<std::string>& argv, const ProcessOptions& options) {
  ProcessResult r;
  r.timeout = options.timeout;
  if (argv.empty() || argv[0].empty()) {
    r.spawnError = "no program given";
    return r;
  }
  r.program = argv[0];

  Fd outRead, outWrite, errRead, errWrite, inRead, inWrite;
  if (!makePipe(outRead, outWrite) || !makePipe(errRead, errWrite) || (options.input && !makePipe(inRead, inWrite))) {
    r.spawnError = fmt::format("cannot create a pipe: {}", std::strerror(errno));
    return r;
  }

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (options.input)
    posix_spawn_file_actions_adddup2(&actions, inRead.get(), STDIN_FILENO);
  else  // never the terminal: a program waiting for input there would hang us
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, outWrite.get(), STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, errWrite.get(), STDERR_FILENO);

  // Its own process group (so a timeout kills what it started too), no blocked signals, and SIGPIPE
  // back to its default action in case ptxmm's caller ignores it.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attr, &none);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigdefault(&attr, &defaults);

  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  pid_t pid = 0;
  const auto start = Clock::now();
  int rc = posix_spawnp(&pid, argv[0].c_str(), &actions, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  // The child's ends: closed here so that reading sees end-of-file once the child (and its children)
  // close theirs.
  outWrite.reset();
  errWrite.reset();
  inRead.reset();
  if (rc != 0) {
    r.spawnError = rc == ENOENT && argv[0].find('/') == std::string::npos ? std::string("not found on $PATH")
                                                                          : std::string(std::strerror(rc));
    return r;
  }

  std::optional<Clock::time_point> deadline;
  if (options.timeout.count() > 0) deadline = start + options.timeout;
  std::optional<SigpipeGuard> sigpipe;
  size_t fed = 0;
  if (options.input) {
    if (options.input->empty())
      inWrite.reset();
    else {
      sigpipe.emplace();
      setNonBlocking(inWrite.get());
    }
  }
  setNonBlocking(outRead.get());
  setNonBlocking(errRead.get());

  std::array<char, 1 << 16> buf{};
  while (outRead.open() || errRead.open() || inWrite.open()) {
    int waitMs = -1;
    if (deadline) {
      auto left = std::chrono::ceil<std::chrono::milliseconds>(*deadline - Clock::now()).count();
      if (left <= 0) {
        r.timedOut = true;
        break;
      }
      waitMs = static_cast<int>(std::min<long long>(left, 1 << 30));
    }
    std::array<pollfd, 3> fds{};
    std::array<Fd*, 3> which{};
    nfds_t n = 0;
    for (Fd* fd : {&outRead, &errRead}) {
      if (!fd->open()) continue;
      fds[n] = {fd->get(), POLLIN, 0};
      which[n++] = fd;
    }
    if (inWrite.open()) {
      fds[n] = {inWrite.get(), POLLOUT, 0};
      which[n++] = &inWrite;
    }
    int ready = poll(fds.data(), n, waitMs);
    if (ready < 0) {
      if (errno == EINTR) continue;
      r.err += fmt::format("ptxmm: poll failed: {}\n", std::strerror(errno));
      kill(-pid, SIGKILL);
      break;
    }
    for (nfds_t i = 0; i < n; ++i) {
      if (fds[i].revents == 0) continue;
      Fd& fd = *which[i];
      if (&fd == &inWrite) {
        const std::string& input = *options.input;
        ssize_t m = ::write(fd.get(), input.data() + fed, input.size() - fed);
        if (m > 0) fed += static_cast<size_t>(m);
        if (m < 0 && errno == EPIPE) sigpipe->raised();
        // Done, or the child closed its stdin: it will not read the rest.
        if (fed == input.size() || (m < 0 && errno != EAGAIN && errno != EINTR)) fd.reset();
        continue;
      }
      ssize_t m = ::read(fd.get(), buf.data(), buf.size());
      if (m > 0)
        (&fd == &outRead ? r.out : r.err).append(buf.data(), static_cast<size_t>(m));
      else if (m == 0 || (errno != EAGAIN && errno != EINTR))
        fd.reset();
    }
  }
  if (r.timedOut) kill(-pid, SIGKILL);  // the group: grandchildren holding the pipes die too
  outRead.reset();
  errRead.reset();
  inWrite.reset();
  bool lateTimeout = false;
  int status = reap(pid, r.timedOut ? std::nullopt : deadline, lateTimeout);
  r.timedOut = r.timedOut || lateTimeout;
  if (WIFEXITED(status)) r.exitCode = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  return r;
}

}  // namespace ptxmm
