// The event program: what a litmus test means, independent of any memory model. Produced by
// events::lower(Test), consumed by the enum and smt engines (which choose rf, co and the fence.sc
// order) and, through the cat interpreter, by the model. Encodings are documented in docs/design.md.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "events/Expr.hpp"
#include "litmus/Ast.hpp"
#include "ptx/Attributes.hpp"
#include "ptx/Ops.hpp"

namespace ptxmm::events {

/// Basic event types (herd's R/W/F). An RMW is a Read and a Write linked by the `rmw` relation.
enum class EventType : uint8_t { Read, Write, Fence };

/// A value-dependent cat set membership of an event (docs/design.md "Dynamic tags"): the event belongs
/// to the built-in set `name` in an execution iff `cond` evaluates non-0 there.
struct DynamicTag {
  std::string name;  ///< cat set name ("MB_PHASE_DONE", "MB_WAIT_OK")
  ExprId cond = -1;  ///< membership condition over the execution's read values
};

/// One event. Events of all paths of all threads live in one vector; an execution uses the events
/// of one path per thread plus the init writes.
struct Event {
  EventId id = -1;
  EventType type = EventType::Fence;
  bool isInit = false;  ///< initial write of a location (no thread)
  int thread = -1;      ///< index into EventProgram::threads (async pseudo-threads included)
  int instr = -1;       ///< statement index in the litmus thread's code that gave rise to it
  SourceLoc src;
  ptx::OpId op = ptx::OpId::Mov;
  ptx::Sem sem = ptx::Sem::None;
  ptx::Scope scope = ptx::Scope::None;
  ptx::Proxy proxy = ptx::Proxy::Generic;
  ptx::Space space = ptx::Space::Generic;
  int loc = -1;                         ///< physical location id (Read/Write)
  int vloc = -1;                        ///< virtual address id (Read/Write; the operand of a tensormap
                                        ///< acquire fence); aliases share `loc`, differ in `vloc`
  ExprId value = -1;                    ///< Write: value written; Read: ReadVal(id)
  int asyncOp = -1;                     ///< index into EventProgram::asyncOps, or -1 if in program order
  std::vector<std::string> tags;        ///< cat event-set names this event belongs to (see docs/design.md)
  std::vector<DynamicTag> dynamicTags;  ///< value-dependent set memberships (see docs/design.md)
  std::string label;                    ///< short text for witnesses ("W x=1", "F.proxy.async")
};

/// A physical location (one memory cell; .b128 cells hold one 128-bit value).
struct Location {
  std::string name;  ///< "x", "s@cta1", "bar@cta0", "%clc_queue"
  ptx::Space space = ptx::Space::Global;
  int ownerCta = -1;  ///< shared locations: the CTA whose shared memory holds it
  int64_t init = 0;
  bool isMbarrier = false;
  bool isTmem = false;  ///< tensor memory (`.tmem`): accessed only by tcgen05 (tag TMEM)
  int mbarCount = 0;    ///< expected arrival count (for the phase re-arm)
  bool hidden = false;  ///< model-internal (try_cancel launch queue): not printed in states
};

/// A virtual address (alias class member) of a physical location.
struct VirtualAddress {
  std::string name;
  int loc = -1;
  ptx::Proxy proxy = ptx::Proxy::Generic;  ///< proxy through which this name accesses memory
  /// The virtual address this name is a proxy synonym of (`s @ surface aliases x`: x's), itself for a
  /// declared name or a generic alias. Accesses through two names with one synonym base are at the same
  /// address (PTX ISA §8.2.1, ISCA'22 virtual synonyms); otherwise the names are aliases (§8.2.2).
  int synonymOf = -1;
};

/// A thread of the program. Real threads come first, in litmus order; then one pseudo-thread per
/// asynchronous operation instance (its events in their own program order `aso`).
struct ThreadInfo {
  std::string name;  ///< "P0", or "P0.cp.async.bulk#1" for an async pseudo-thread
  litmus::Placement where;
  bool isAsync = false;
  int issuer = -1;  ///< async: issuing real thread
};

/// An asynchronous operation instance (cp.async, cp.async.bulk, try_cancel response writer ...).
struct AsyncOp {
  ptx::OpId op = ptx::OpId::CpAsyncBulk;
  int thread = -1;                   ///< its pseudo-thread
  EventId issuer = -1;               ///< the issuing instruction's event in the real thread (a Fence-type marker event)
  std::vector<EventId> events;       ///< its events, in async order
  std::vector<EventId> completions;  ///< events that observe its completion (wait_group, mbarrier complete-tx, ...)
  /// The async instruction instance this op belongs to: a multicast copy / try_cancel is split into a
  /// source op (issuer's CTA) and one op per destination CTA sharing the instance (docs/lowering.md).
  int instance = -1;
};

/// How a path ends.
enum class PathEnd : uint8_t { Normal, Cut, Blocked };

/// One execution barrier: a named barrier of one CTA (`bar{.cta}.sync/arrive`) or the cluster barrier of
/// one cluster (`barrier.cluster.arrive/wait`). Generation k of a barrier completes when the arrivals
/// it needs are there (docs/lowering.md "Execution barriers").
/// What an execution barrier is (docs/lowering.md "Execution barriers", "Warp-level helpers").
enum class BarrierKind : uint8_t {
  Named,    ///< bar{.cta}.sync / bar.arrive id of one CTA
  Cluster,  ///< barrier.cluster of one cluster
  Warp,     ///< bar.warp.sync of one membermask of one warp: orders the participants' accesses
  Elect,    ///< elect.sync of one membermask of one warp: waits, elects one leader, orders nothing
  GridDep,  ///< griddepcontrol.wait of one thread of the dependent grid: waits for the primary grid's exit
};

struct ExecBarrier {
  bool cluster = false;  ///< barrier.cluster (else a named CTA barrier)
  BarrierKind kind = BarrierKind::Named;
  int group = -1;                 ///< CTA id (named barrier) or cluster id
  int64_t id = 0;                 ///< barrier name (0 for the cluster barrier)
  std::vector<int> participants;  ///< real threads of the CTA / cluster
  std::string name;               ///< "bar 0 @cta0", "barrier.cluster @cluster0"
};

/// What one path does at one execution barrier.
struct BarrierUse {
  int barrier = -1;         ///< index into EventProgram::barriers
  int arrived = 0;          ///< arrivals of the path (it reached generations 0 .. arrived-1)
  std::vector<int> passed;  ///< generations whose completion the path waited for and got past
  int blockedGen = -1;      ///< >= 0: the path ends waiting for this generation (PathEnd::Blocked)
  /// Generation -> the thread count operand the path used there (bar.sync/bar.arrive `a, b`, in litmus
  /// threads): that many arrivals complete the generation. A generation absent here waits for every
  /// participant (arrived or exited, its path ending `Normal`). Counts may differ between generations
  /// (the barrier is reinitialised when it completes, PTX ISA 9.2 §9.7.13.1).
  std::map<int, int> counts;
  /// BarrierKind::Elect: the thread the path assumes elected. The leader is a function of the
  /// membermask (PTX ISA 9.2 §9.7.13.14 "the same leader thread is elected for the same membermask
  /// every time"), so it is one thread for every generation, and the participants' paths must agree.
  int leader = -1;
};

/// One control-flow path of one real thread (loops unrolled to the bound).
struct Path {
  std::vector<EventId> events;              ///< this path's events of the real thread, in program order, then
                                            ///< the events of async operations it issued
  std::vector<ExprId> guards;               ///< boolean expressions that must be non-0 for the path to be taken
  std::map<std::string, ExprId> finalRegs;  ///< register values at the end of the path
  PathEnd end = PathEnd::Normal;
  /// Cut in a spin iteration (its end marker is SPIN_CUT): the model decides whether it spins forever
  /// (flag livelock) or goes on by fairness; such a path does not raise the `cut` flag.
  bool spin = false;
  std::vector<EventId> readsFinal;  ///< Blocked: these reads must read the co-last write of their location
  std::vector<std::pair<ExprId, std::string>> undefinedIf;  ///< UB when the expression is non-0
  std::vector<BarrierUse> barriers;  ///< execution barriers the path uses (sorted by barrier index)
  EventId blockedAt = -1;            ///< Blocked at an execution barrier: its bar.sync / cluster wait event
};

/// Static relation given as event pairs (over the whole program; engines restrict to active events).
using PairList = std::vector<std::pair<EventId, EventId>>;

/// The lowered test.
struct EventProgram {
  const litmus::Test* test = nullptr;
  ExprPool exprs;
  std::vector<Event> events;
  std::vector<Location> locations;
  std::vector<VirtualAddress> vaddrs;
  std::vector<ThreadInfo> threads;
  std::vector<AsyncOp> asyncOps;
  std::vector<EventId> initWrites;       ///< one per location
  std::vector<std::vector<Path>> paths;  ///< per real thread
  std::vector<ExecBarrier> barriers;     ///< execution barriers used by the program
  /// Static relations by cat name (po, addr, data, ctrl, rmw, issue, aso, bar-sync, ...); all pairs of
  /// events that may co-occur. Scope relations and `loc`/`vloc`/`int`/`ext` are derived by the engines
  /// from event attributes (see docs/design.md).
  std::map<std::string, PairList> relations;
  int unrollBound = 2;
};

}  // namespace ptxmm::events
