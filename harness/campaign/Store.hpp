// The durable campaign store: one SQLite database (WAL mode) holding the tests of a campaign (their
// text, hash and the model's allowed states), the generated mutants, every stress configuration
// tried, and every run (histogram, device, timing, status). A run is written in its own transaction
// the moment it finishes, so a campaign killed at any point loses no finished run. Workers claim
// pending runs with a lease (an expiry time renewed while the run goes on): a run whose worker died
// is claimed again once its lease has expired.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace ptxmm::campaign {

/// A prepared statement (RAII); bind with 1-based indexes.
class Stmt {
 public:
  Stmt(sqlite3* db, const std::string& sql);
  ~Stmt();
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  Stmt& bind(int i, const std::string& v);
  Stmt& bind(int i, int64_t v);
  Stmt& bind(int i, double v);
  Stmt& bindNull(int i);
  Stmt& bindOpt(int i, const std::optional<std::string>& v);
  /// Next row: true while there is one. Throws std::runtime_error on an error.
  bool step();
  /// Runs to completion (statements without rows).
  void run();
  [[nodiscard]] int64_t i64(int col) const;
  [[nodiscard]] double f64(int col) const;
  [[nodiscard]] std::string text(int col) const;
  [[nodiscard]] bool isNull(int col) const;

 private:
  sqlite3* db_;
  sqlite3_stmt* st_ = nullptr;
};

/// One test or mutant of the store.
struct TestRow {
  int64_t id = 0;
  std::string kind = "test";  ///< "test" or "mutant"
  std::string name, file, hash, text, arch;
  std::string model;                             ///< model name ("" when no model)
  std::optional<std::set<std::string>> allowed;  ///< the model's allowed final states
  std::string modelError;                        ///< why there are no allowed states
  /// The allowed states some execution of which hangs (the model's deadlock or livelock flag): on a device its
  /// instances spin to the bound and record no final state. nullopt: not known (a store written before the
  /// store kept them).
  std::optional<std::set<std::string>> hanging;
  // Mutants only:
  int64_t parent = 0;    ///< the test it was made from
  std::string site;      ///< the synchronisation site ("P0 l.12 fence.acq_rel.gpu")
  std::string mutation;  ///< "remove" or "weaken"
  std::string mclass;    ///< generic-proxy, async-proxy, mbarrier, cluster
  std::string target;    ///< the state the mutation makes allowed (seen: killed)
};

/// One run (a test under one configuration and iteration count).
struct RunRow {
  int64_t id = 0, test = 0, config = 0;
  uint64_t iterations = 0;
  std::string batch = "campaign";  ///< "campaign" (run / resume) or "tune"
  std::string status = "pending";  ///< pending, claimed, ok, skipped, timed-out, error
  std::string worker;
  double lease = 0;
  int attempts = 0;
  nlohmann::json device;                   ///< DeviceInfo JSON
  std::map<std::string, uint64_t> states;  ///< histogram
  uint64_t other = 0, timedOut = 0, instances = 0, launches = 0, columns = 0;
  double seconds = 0;
  std::string reason;
  int64_t forbiddenSeen = 0, allowedSeen = 0, allowedTotal = 0, targetSeen = 0;
  double started = 0, finished = 0;
};

/// One stress configuration.
struct ConfigRow {
  int64_t id = 0;
  nlohmann::json params;  ///< runner::toJson(StressParams)
  std::string origin;     ///< "run", "tune-random", "tune-refine", "tune-default"
  double created = 0;
  std::optional<double> score, deathRate, seconds;
  int64_t killed = 0, killable = 0;
  bool stoppedEarly = false;
};

/// Seconds since the epoch (wall clock; leases and timestamps).
[[nodiscard]] double now();

/// "host:pid" of this process (the worker name of its claims).
[[nodiscard]] std::string workerName();

/// Is the run's status a finished one (ok, skipped, timed-out, error)?
[[nodiscard]] bool isFinished(const std::string& status);

/// The store: one connection to the database file.
class Store {
 public:
  /// Opens (creating if needed) the database at `path`; WAL mode, a busy timeout for concurrent
  /// workers. Throws std::runtime_error "PATH: error: ...".
  explicit Store(const std::string& path);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] sqlite3* handle() const { return db_; }

  /// Runs `sql` (no rows).
  void exec(const std::string& sql);
  /// BEGIN IMMEDIATE ... COMMIT around `fn` (ROLLBACK when it throws).
  template <class F>
  void transaction(F&& fn) {
    exec("BEGIN IMMEDIATE");
    try {
      fn();
      exec("COMMIT");
    } catch (...) {
      exec("ROLLBACK");
      throw;
    }
  }

  void setMeta(const std::string& key, const std::string& value);
  [[nodiscard]] std::optional<std::string> meta(const std::string& key);

  /// Inserts the test (or returns the id of the same kind, name and text already stored).
  int64_t addTest(const TestRow& t);
  /// Records the hanging states of a stored test (TestRow::hanging).
  void setHanging(int64_t test, const std::set<std::string>& hanging);
  /// Every test (kind "test") or mutant (kind "mutant"), in id order; empty kind: all.
  [[nodiscard]] std::vector<TestRow> tests(const std::string& kind = "");
  [[nodiscard]] TestRow test(int64_t id);

  /// The id of the configuration with these parameters (inserted if new, with `origin`).
  int64_t addConfig(const nlohmann::json& params, const std::string& origin);
  [[nodiscard]] std::vector<ConfigRow> configs();
  [[nodiscard]] ConfigRow config(int64_t id);
  /// Stores the tuning figures of a configuration.
  void setConfigScore(int64_t id, double score, int64_t killed, int64_t killable, double deathRate, double seconds,
                      bool stoppedEarly);

  /// Adds a pending run unless the same (test, config, iterations) exists; returns its id.
  int64_t addRun(int64_t test, int64_t config, uint64_t iterations, const std::string& batch);
  /// Claims the next pending run of `batch` (or a claimed one whose lease has expired) for
  /// `worker` for `leaseSeconds`. A run whose lease expired `maxAttempts` times is marked error
  /// (its workers died: a crash or hang the watchdog did not end). nullopt: nothing left to claim.
  std::optional<RunRow> claim(const std::string& batch, const std::string& worker, double leaseSeconds,
                              int maxAttempts = 3);
  /// Claims a given run (tune: the tuner runs its own runs). False when it is finished already.
  bool claimRun(int64_t run, const std::string& worker, double leaseSeconds);
  /// Extends the lease of a claimed run. False when the claim was lost.
  bool renew(int64_t run, const std::string& worker, double leaseSeconds);
  /// Stores a finished run (one transaction). False when `worker` no longer holds the claim.
  bool finish(const RunRow& r);
  /// Writes a finished run's results (from another store) into run `id`, whatever its state.
  void importResult(int64_t id, const RunRow& r);
  /// Releases the claims of this host's workers whose process is gone (resume after a kill).
  int releaseDeadLocalClaims();
  [[nodiscard]] std::vector<RunRow> runs(const std::string& batch = "", std::optional<int64_t> config = {});
  [[nodiscard]] std::optional<RunRow> run(int64_t id);
  /// (pending or claimed, finished) runs of `batch`.
  [[nodiscard]] std::pair<int64_t, int64_t> progress(const std::string& batch);

 private:
  void ensureHanging();  // adds tests.hanging to a store made before it existed
  [[nodiscard]] std::string testCols() const;
  std::string path_;
  sqlite3* db_ = nullptr;
  bool hasHanging_ = false;
};

/// The allowed states as JSON text, and back.
[[nodiscard]] std::string statesJson(const std::set<std::string>& s);
[[nodiscard]] std::set<std::string> statesFromJson(const std::string& text);

}  // namespace ptxmm::campaign
