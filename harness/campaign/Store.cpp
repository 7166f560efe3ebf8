// The SQLite campaign store (C API, a thin RAII wrapper).
#include "campaign/Store.hpp"

#include <signal.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <stdexcept>

namespace ptxmm::campaign {

using nlohmann::json;

namespace {

// Schema version 1. tests.hanging came later: a store without the column reads it as NULL and gets it with the
// first test written (ensureHanging), so reading never changes a store and older readers ignore the column. Runs
// are unique per (test, config, iterations): adding the same campaign twice adds nothing, and a finished campaign
// re-run is a no-op.
const char* kSchema = R"SQL(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS tests(
  id INTEGER PRIMARY KEY, kind TEXT NOT NULL, name TEXT NOT NULL, file TEXT, hash TEXT, text TEXT NOT NULL,
  arch TEXT, model TEXT, allowed TEXT, model_error TEXT,
  parent INTEGER, site TEXT, mutation TEXT, class TEXT, target TEXT,
  UNIQUE(kind, name, text));
CREATE TABLE IF NOT EXISTS configs(
  id INTEGER PRIMARY KEY, params TEXT NOT NULL UNIQUE, origin TEXT, created REAL,
  score REAL, killed INTEGER, killable INTEGER, death_rate REAL, seconds REAL, stopped_early INTEGER);
CREATE TABLE IF NOT EXISTS runs(
  id INTEGER PRIMARY KEY, test INTEGER NOT NULL REFERENCES tests(id), config INTEGER NOT NULL REFERENCES configs(id),
  iterations INTEGER NOT NULL, batch TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'pending',
  worker TEXT, lease REAL, attempts INTEGER NOT NULL DEFAULT 0,
  device TEXT, histogram TEXT, other INTEGER, timed_out INTEGER, instances INTEGER, launches INTEGER,
  columns INTEGER, seconds REAL, reason TEXT,
  forbidden_seen INTEGER, allowed_seen INTEGER, allowed_total INTEGER, target_seen INTEGER,
  started REAL, finished REAL,
  UNIQUE(test, config, iterations, batch));
CREATE INDEX IF NOT EXISTS runs_status ON runs(batch, status);
)SQL";

const char* kRunCols =
    "id, test, config, iterations, batch, status, worker, lease, attempts, device, histogram, other, timed_out, "
    "instances, launches, columns, seconds, reason, forbidden_seen, allowed_seen, allowed_total, target_seen, "
    "started, finished";

RunRow readRun(const Stmt& s) {
  RunRow r;
  r.id = s.i64(0);
  r.test = s.i64(1);
  r.config = s.i64(2);
  r.iterations = static_cast<uint64_t>(s.i64(3));
  r.batch = s.text(4);
  r.status = s.text(5);
  r.worker = s.text(6);
  r.lease = s.f64(7);
  r.attempts = static_cast<int>(s.i64(8));
  if (!s.isNull(9)) r.device = json::parse(s.text(9), nullptr, false);
  if (!s.isNull(10)) {
    json h = json::parse(s.text(10), nullptr, false);
    if (h.is_object())
      for (const auto& [k, v] : h.items()) r.states[k] = v.get<uint64_t>();
  }
  r.other = static_cast<uint64_t>(s.i64(11));
  r.timedOut = static_cast<uint64_t>(s.i64(12));
  r.instances = static_cast<uint64_t>(s.i64(13));
  r.launches = static_cast<uint64_t>(s.i64(14));
  r.columns = static_cast<uint64_t>(s.i64(15));
  r.seconds = s.f64(16);
  r.reason = s.text(17);
  r.forbiddenSeen = s.i64(18);
  r.allowedSeen = s.i64(19);
  r.allowedTotal = s.i64(20);
  r.targetSeen = s.i64(21);
  r.started = s.f64(22);
  r.finished = s.f64(23);
  return r;
}

const char* kTestCols =
    "id, kind, name, file, hash, text, arch, model, allowed, model_error, parent, site, mutation, class, target";

TestRow readTest(const Stmt& s) {
  TestRow t;
  t.id = s.i64(0);
  t.kind = s.text(1);
  t.name = s.text(2);
  t.file = s.text(3);
  t.hash = s.text(4);
  t.text = s.text(5);
  t.arch = s.text(6);
  t.model = s.text(7);
  if (!s.isNull(8)) t.allowed = statesFromJson(s.text(8));
  t.modelError = s.text(9);
  t.parent = s.i64(10);
  t.site = s.text(11);
  t.mutation = s.text(12);
  t.mclass = s.text(13);
  t.target = s.text(14);
  if (!s.isNull(15)) t.hanging = statesFromJson(s.text(15));
  return t;
}

ConfigRow readConfig(const Stmt& s) {
  ConfigRow c;
  c.id = s.i64(0);
  c.params = json::parse(s.text(1));
  c.origin = s.text(2);
  c.created = s.f64(3);
  if (!s.isNull(4)) c.score = s.f64(4);
  c.killed = s.i64(5);
  c.killable = s.i64(6);
  if (!s.isNull(7)) c.deathRate = s.f64(7);
  if (!s.isNull(8)) c.seconds = s.f64(8);
  c.stoppedEarly = s.i64(9) != 0;
  return c;
}

}  // namespace

// ---- Stmt ----

Stmt::Stmt(sqlite3* db, const std::string& sql) : db_(db) {
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st_, nullptr) != SQLITE_OK)
    throw std::runtime_error(std::string("sqlite: ") + sqlite3_errmsg(db) + " in: " + sql);
}
Stmt::~Stmt() { sqlite3_finalize(st_); }
Stmt& Stmt::bind(int i, const std::string& v) {
  sqlite3_bind_text(st_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  return *this;
}
Stmt& Stmt::bind(int i, int64_t v) {
  sqlite3_bind_int64(st_, i, v);
  return *this;
}
Stmt& Stmt::bind(int i, double v) {
  sqlite3_bind_double(st_, i, v);
  return *this;
}
Stmt& Stmt::bindNull(int i) {
  sqlite3_bind_null(st_, i);
  return *this;
}
Stmt& Stmt::bindOpt(int i, const std::optional<std::string>& v) { return v ? bind(i, *v) : bindNull(i); }
bool Stmt::step() {
  int rc = sqlite3_step(st_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  throw std::runtime_error(std::string("sqlite: ") + sqlite3_errmsg(db_));
}
void Stmt::run() {
  while (step()) {
  }
}
int64_t Stmt::i64(int col) const { return sqlite3_column_int64(st_, col); }
double Stmt::f64(int col) const { return sqlite3_column_double(st_, col); }
std::string Stmt::text(int col) const {
  const unsigned char* p = sqlite3_column_text(st_, col);
  return p == nullptr ? std::string() : std::string(reinterpret_cast<const char*>(p));
}
bool Stmt::isNull(int col) const { return sqlite3_column_type(st_, col) == SQLITE_NULL; }

// ---- helpers ----

double now() { return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(); }

std::string workerName() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return std::string(host) + ":" + std::to_string(getpid());
}

bool isFinished(const std::string& status) { return status != "pending" && status != "claimed"; }

std::string statesJson(const std::set<std::string>& s) { return json(s).dump(); }

std::set<std::string> statesFromJson(const std::string& text) {
  std::set<std::string> out;
  json j = json::parse(text, nullptr, false);
  if (j.is_array())
    for (const auto& v : j) out.insert(v.get<std::string>());
  return out;
}

// ---- Store ----

Store::Store(const std::string& path) : path_(path) {
  if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
    std::string msg = db_ != nullptr ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw std::runtime_error(path + ": error: cannot open the campaign store: " + msg);
  }
  sqlite3_busy_timeout(db_, 60000);
  try {
    // WAL: readers (report, progress) never block the workers; FULL: a committed run survives the
    // machine going away, not only the process.
    exec("PRAGMA journal_mode=WAL");
    exec("PRAGMA synchronous=FULL");
    exec(kSchema);
    auto v = meta("schema");
    if (!v)
      setMeta("schema", "1");
    else if (*v != "1")
      throw std::runtime_error("schema version " + *v + " (this ptxmm reads 1)");
    Stmt cols(db_, "SELECT 1 FROM pragma_table_info('tests') WHERE name = 'hanging'");
    hasHanging_ = cols.step();
  } catch (const std::exception& e) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw std::runtime_error(path + ": error: not a ptxmm campaign store: " + e.what());
  }
}

Store::~Store() { sqlite3_close(db_); }

void Store::exec(const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err != nullptr ? err : "unknown error";
    sqlite3_free(err);
    throw std::runtime_error("sqlite: " + msg);
  }
}

void Store::setMeta(const std::string& key, const std::string& value) {
  Stmt(db_, "INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
      .bind(1, key)
      .bind(2, value)
      .run();
}

std::optional<std::string> Store::meta(const std::string& key) {
  Stmt s(db_, "SELECT value FROM meta WHERE key = ?");
  s.bind(1, key);
  if (s.step()) return s.text(0);
  return std::nullopt;
}

void Store::ensureHanging() {
  if (hasHanging_) return;
  exec("ALTER TABLE tests ADD COLUMN hanging TEXT");
  hasHanging_ = true;
}

std::string Store::testCols() const { return std::string(kTestCols) + (hasHanging_ ? ", hanging" : ", NULL"); }

int64_t Store::addTest(const TestRow& t) {
  ensureHanging();
  Stmt ins(db_,
           "INSERT OR IGNORE INTO tests(kind, name, file, hash, text, arch, model, allowed, model_error, parent, site, "
           "mutation, class, target, hanging) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  ins.bind(1, t.kind).bind(2, t.name).bind(3, t.file).bind(4, t.hash).bind(5, t.text).bind(6, t.arch).bind(7, t.model);
  ins.bindOpt(8, t.allowed ? std::optional<std::string>(statesJson(*t.allowed)) : std::nullopt);
  ins.bind(9, t.modelError)
      .bind(10, t.parent)
      .bind(11, t.site)
      .bind(12, t.mutation)
      .bind(13, t.mclass)
      .bind(14, t.target);
  ins.bindOpt(15, t.hanging ? std::optional<std::string>(statesJson(*t.hanging)) : std::nullopt);
  ins.run();
  Stmt q(db_, "SELECT id FROM tests WHERE kind = ? AND name = ? AND text = ?");
  q.bind(1, t.kind).bind(2, t.name).bind(3, t.text);
  if (!q.step()) throw std::runtime_error("sqlite: test row vanished");
  return q.i64(0);
}

void Store::setHanging(int64_t test, const std::set<std::string>& hanging) {
  ensureHanging();
  Stmt(db_, "UPDATE tests SET hanging = ? WHERE id = ?").bind(1, statesJson(hanging)).bind(2, test).run();
}

std::vector<TestRow> Store::tests(const std::string& kind) {
  Stmt s(db_, "SELECT " + testCols() + " FROM tests WHERE ? = '' OR kind = ? ORDER BY id");
  s.bind(1, kind).bind(2, kind);
  std::vector<TestRow> out;
  while (s.step()) out.push_back(readTest(s));
  return out;
}

TestRow Store::test(int64_t id) {
  Stmt s(db_, "SELECT " + testCols() + " FROM tests WHERE id = ?");
  s.bind(1, id);
  if (!s.step()) throw std::runtime_error(path_ + ": error: no test " + std::to_string(id));
  return readTest(s);
}

int64_t Store::addConfig(const json& params, const std::string& origin) {
  const std::string text = params.dump();
  Stmt(db_, "INSERT OR IGNORE INTO configs(params, origin, created) VALUES(?, ?, ?)")
      .bind(1, text)
      .bind(2, origin)
      .bind(3, now())
      .run();
  Stmt q(db_, "SELECT id FROM configs WHERE params = ?");
  q.bind(1, text);
  if (!q.step()) throw std::runtime_error("sqlite: config row vanished");
  return q.i64(0);
}

std::vector<ConfigRow> Store::configs() {
  Stmt s(db_,
         "SELECT id, params, origin, created, score, killed, killable, death_rate, seconds, stopped_early FROM configs "
         "ORDER BY id");
  std::vector<ConfigRow> out;
  while (s.step()) out.push_back(readConfig(s));
  return out;
}

ConfigRow Store::config(int64_t id) {
  Stmt s(db_,
         "SELECT id, params, origin, created, score, killed, killable, death_rate, seconds, stopped_early FROM configs "
         "WHERE id = ?");
  s.bind(1, id);
  if (!s.step()) throw std::runtime_error(path_ + ": error: no configuration " + std::to_string(id));
  return readConfig(s);
}

void Store::setConfigScore(int64_t id, double score, int64_t killed, int64_t killable, double deathRate, double seconds,
                           bool stoppedEarly) {
  Stmt(db_,
       "UPDATE configs SET score = ?, killed = ?, killable = ?, death_rate = ?, seconds = ?, stopped_early = ? WHERE "
       "id = ?")
      .bind(1, score)
      .bind(2, killed)
      .bind(3, killable)
      .bind(4, deathRate)
      .bind(5, seconds)
      .bind(6, static_cast<int64_t>(stoppedEarly))
      .bind(7, id)
      .run();
}

int64_t Store::addRun(int64_t test, int64_t config, uint64_t iterations, const std::string& batch) {
  Stmt(db_, "INSERT OR IGNORE INTO runs(test, config, iterations, batch) VALUES(?, ?, ?, ?)")
      .bind(1, test)
      .bind(2, config)
      .bind(3, static_cast<int64_t>(iterations))
      .bind(4, batch)
      .run();
  Stmt q(db_, "SELECT id FROM runs WHERE test = ? AND config = ? AND iterations = ? AND batch = ?");
  q.bind(1, test).bind(2, config).bind(3, static_cast<int64_t>(iterations)).bind(4, batch);
  if (!q.step()) throw std::runtime_error("sqlite: run row vanished");
  return q.i64(0);
}

std::optional<RunRow> Store::claim(const std::string& batch, const std::string& worker, double leaseSeconds,
                                   int maxAttempts) {
  std::optional<RunRow> out;
  transaction([&] {
    const double t = now();
    Stmt(db_,
         "UPDATE runs SET status = 'error', finished = ?, reason = 'its worker died or hung ' || attempts || "
         "' time(s) while running it (the lease expired each time): a crash or hang that the watchdog did not end' "
         "WHERE batch = ? AND status = 'claimed' AND lease < ? AND attempts >= ?")
        .bind(1, t)
        .bind(2, batch)
        .bind(3, t)
        .bind(4, static_cast<int64_t>(maxAttempts))
        .run();
    Stmt s(db_, std::string("UPDATE runs SET status = 'claimed', worker = ?, lease = ?, attempts = attempts + 1, "
                            "started = ? WHERE id = (SELECT id FROM runs WHERE batch = ? AND (status = 'pending' OR "
                            "(status = 'claimed' AND lease < ?)) ORDER BY id LIMIT 1) RETURNING ") +
                    kRunCols);
    s.bind(1, worker).bind(2, t + leaseSeconds).bind(3, t).bind(4, batch).bind(5, t);
    if (s.step()) out = readRun(s);
    while (s.step()) {
    }
  });
  return out;
}

bool Store::claimRun(int64_t run, const std::string& worker, double leaseSeconds) {
  const double t = now();
  Stmt s(db_,
         "UPDATE runs SET status = 'claimed', worker = ?, lease = ?, attempts = attempts + 1, started = ? WHERE id = ? "
         "AND (status = 'pending' OR (status = 'claimed' AND lease < ?))");
  s.bind(1, worker).bind(2, t + leaseSeconds).bind(3, t).bind(4, run).bind(5, t);
  s.run();
  return sqlite3_changes(db_) > 0;
}

bool Store::renew(int64_t run, const std::string& worker, double leaseSeconds) {
  Stmt s(db_, "UPDATE runs SET lease = ? WHERE id = ? AND worker = ? AND status = 'claimed'");
  s.bind(1, now() + leaseSeconds).bind(2, run).bind(3, worker);
  s.run();
  return sqlite3_changes(db_) > 0;
}

namespace {

/// Writes a run's result fields into row `id`; `claimedBy`: only while that worker holds the claim.
/// Returns whether the row was written.
bool writeResult(sqlite3* db, int64_t id, const RunRow& r, const std::string* claimedBy) {
  json h = json::object();
  for (const auto& [k, v] : r.states) h[k] = v;
  Stmt s(db, std::string("UPDATE runs SET status = ?, device = ?, histogram = ?, other = ?, timed_out = ?, instances = "
                         "?, launches = ?, columns = ?, seconds = ?, reason = ?, forbidden_seen = ?, allowed_seen = ?, "
                         "allowed_total = ?, target_seen = ?, finished = ?, worker = ?, attempts = ?, started = ? "
                         "WHERE id = ?") +
                 (claimedBy != nullptr ? " AND worker = ? AND status = 'claimed'" : ""));
  s.bind(1, r.status)
      .bind(2, r.device.dump(-1, ' ', false, json::error_handler_t::replace))
      .bind(3, h.dump(-1, ' ', false, json::error_handler_t::replace))
      .bind(4, static_cast<int64_t>(r.other))
      .bind(5, static_cast<int64_t>(r.timedOut))
      .bind(6, static_cast<int64_t>(r.instances))
      .bind(7, static_cast<int64_t>(r.launches))
      .bind(8, static_cast<int64_t>(r.columns))
      .bind(9, r.seconds)
      .bind(10, r.reason)
      .bind(11, r.forbiddenSeen)
      .bind(12, r.allowedSeen)
      .bind(13, r.allowedTotal)
      .bind(14, r.targetSeen)
      .bind(15, r.finished)
      .bind(16, r.worker)
      .bind(17, static_cast<int64_t>(r.attempts))
      .bind(18, r.started)
      .bind(19, id);
  if (claimedBy != nullptr) s.bind(20, *claimedBy);
  s.run();
  return sqlite3_changes(db) > 0;
}

}  // namespace

bool Store::finish(const RunRow& r) {
  bool ok = false;
  transaction([&] { ok = writeResult(db_, r.id, r, &r.worker); });
  return ok;
}

void Store::importResult(int64_t id, const RunRow& r) { writeResult(db_, id, r, nullptr); }

int Store::releaseDeadLocalClaims() {
  const std::string me = workerName();
  const std::string host = me.substr(0, me.rfind(':') + 1);
  std::vector<std::pair<int64_t, std::string>> dead;
  {
    Stmt s(db_, "SELECT id, worker FROM runs WHERE status = 'claimed'");
    while (s.step()) {
      std::string w = s.text(1);
      if (w.rfind(host, 0) != 0) continue;
      pid_t pid = static_cast<pid_t>(std::stol(w.substr(host.size())));
      if (kill(pid, 0) != 0 && errno == ESRCH) dead.emplace_back(s.i64(0), w);
    }
  }
  for (const auto& [id, w] : dead)
    Stmt(db_, "UPDATE runs SET lease = 0 WHERE id = ? AND worker = ? AND status = 'claimed'")
        .bind(1, id)
        .bind(2, w)
        .run();
  return static_cast<int>(dead.size());
}

std::vector<RunRow> Store::runs(const std::string& batch, std::optional<int64_t> config) {
  Stmt s(db_, std::string("SELECT ") + kRunCols +
                  " FROM runs WHERE (? = '' OR batch = ?) AND (? = 0 OR config = ?) ORDER BY id");
  s.bind(1, batch).bind(2, batch).bind(3, static_cast<int64_t>(config.has_value())).bind(4, config.value_or(0));
  std::vector<RunRow> out;
  while (s.step()) out.push_back(readRun(s));
  return out;
}

std::optional<RunRow> Store::run(int64_t id) {
  Stmt s(db_, std::string("SELECT ") + kRunCols + " FROM runs WHERE id = ?");
  s.bind(1, id);
  if (s.step()) return readRun(s);
  return std::nullopt;
}

std::pair<int64_t, int64_t> Store::progress(const std::string& batch) {
  Stmt s(db_,
         "SELECT SUM(status IN ('pending', 'claimed')), SUM(status NOT IN ('pending', 'claimed')) FROM runs WHERE "
         "batch = ?");
  s.bind(1, batch);
  s.step();
  return {s.i64(0), s.i64(1)};
}

}  // namespace ptxmm::campaign
