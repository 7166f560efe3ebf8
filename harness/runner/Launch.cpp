// Running a kernel: buffers, per-launch configuration, batches of launches under the watchdog, and
// the isolated child process.
#include "runner/Launch.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>

#include "runner/Driver.hpp"
#include "runner/Proxies.hpp"
#include "runner/TensorMaps.hpp"

namespace ptxmm::runner {

using nlohmann::json;

namespace {

/// Isolated child: the pipe on which a '.' is written after every finished batch (heartbeat).
int gProgressFd = -1;

/// Reads one reply line from a child: heartbeat dots, then a JSON text ended by '\n'. False when the
/// child closed its end or wrote nothing for `quietMs`. `data` receives the line without the dots.
bool readReply(int fd, int64_t quietMs, std::string& data) {
  const auto bound = std::chrono::milliseconds(quietMs);
  auto deadline = std::chrono::steady_clock::now() + bound;
  data.clear();
  bool complete = false;
  while (!complete) {
    auto now = std::chrono::steady_clock::now();
    if (now > deadline) break;
    struct pollfd pfd {
      fd, POLLIN, 0
    };
    int wait = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count());
    if (poll(&pfd, 1, std::min(wait, 1000)) <= 0) continue;
    char buf[65536];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) break;
    data.append(buf, static_cast<size_t>(n));
    deadline = std::chrono::steady_clock::now() + bound;
    complete = !data.empty() && data.back() == '\n';
  }
  data.erase(0, data.find_first_not_of('.'));
  return complete;
}

/// Writes all of `text` to a socket without raising SIGPIPE when the peer is gone.
bool sendAll(int fd, const std::string& text) {
  size_t off = 0;
  while (off < text.size()) {
    ssize_t w = send(fd, text.data() + off, text.size() - off, MSG_NOSIGNAL);
    if (w <= 0) return false;
    off += static_cast<size_t>(w);
  }
  return true;
}

}  // namespace

#ifndef PTXMM_HAVE_CUDA

RunResult runKernel(const ptxgen::Kernel& kernel, const StressParams&, const std::vector<std::vector<int64_t>>&) {
  RunResult r;
  r.status = RunResult::Status::Skipped;
  r.reason = kernel.notRunnable.empty() ? "ptxmm was built without the CUDA driver API"
                                        : "not runnable: " + kernel.notRunnable;
  return r;
}

#else

using namespace driver;

RunResult runKernel(const ptxgen::Kernel& kernel, const StressParams& params,
                    const std::vector<std::vector<int64_t>>& candidates) {
  RunResult r;
  if (!kernel.notRunnable.empty()) {
    r.status = RunResult::Status::Skipped;
    r.reason = "not runnable: " + kernel.notRunnable;
    return r;
  }
  // The device does not change within a process (a DeviceSession child runs many tests).
  static const DeviceInfo info = queryDevice();
  if (!info.available) {
    r.status = RunResult::Status::Skipped;
    r.reason = info.error;
    return r;
  }
  const int needSm = kernel.arch == "sm_100a" ? 100 : 90;
  const int haveSm = info.smMajor * 10 + info.smMinor;
  if (haveSm != needSm) {  // "a" targets run only on exactly that architecture
    r.status = RunResult::Status::Skipped;
    r.reason = "test needs " + kernel.arch + " but the device is sm_" + std::to_string(haveSm);
    return r;
  }
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  CUmodule mod = nullptr;
  std::vector<CUdeviceptr> allocs;
  ProxyObjects proxies;
  bool resetNeeded = false;
  try {
    check(api().p_cuDeviceGet(&dev, 0), "cuDeviceGet");
    check(api().p_cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
    check(api().p_cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
    LoadedModule loaded = loadModule(kernel);
    mod = loaded.module;
    CUfunction fn = loaded.test, initFn = loaded.init;
    // Columns: fill the GPU with resident clusters.
    uint64_t columns = params.columns;
    const unsigned clusterDim = kernel.clustered ? static_cast<unsigned>(kernel.clusterDim) : 1;
    if (columns == 0) {
      uint64_t residentClusters = 0;
      if (kernel.clustered) {
        CUlaunchConfig lc{};
        lc.gridDimX = clusterDim * 64;
        lc.gridDimY = lc.gridDimZ = 1;
        lc.blockDimX = static_cast<unsigned>(kernel.blockDim);
        lc.blockDimY = lc.blockDimZ = 1;
        CUlaunchAttribute attr{};
        attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        attr.value.clusterDim.x = clusterDim;
        attr.value.clusterDim.y = attr.value.clusterDim.z = 1;
        lc.attrs = &attr;
        lc.numAttrs = 1;
        int n = 0;
        check(api().p_cuOccupancyMaxActiveClusters(&n, fn, &lc), "cuOccupancyMaxActiveClusters");
        residentClusters = static_cast<uint64_t>(std::max(1, n));
      } else {
        int perSm = 0;
        check(api().p_cuOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, fn, kernel.blockDim, 0),
              "cuOccupancyMaxActiveBlocksPerMultiprocessor");
        residentClusters = static_cast<uint64_t>(std::max(1, perSm)) * static_cast<uint64_t>(info.smCount);
      }
      columns = std::max<uint64_t>(1, residentClusters / static_cast<uint64_t>(kernel.roles));
    }
    r.columns = columns;
    const uint64_t n = columns * static_cast<uint64_t>(kernel.slotsPerCta);
    const LaunchGrids grids = launchGrids(kernel, columns);
    const CUfunction dependentFn = loaded.dependent;
    // Buffers.
    const uint64_t stride = cellStride(kernel, params);
    const uint64_t region = regionBytes(kernel, n, stride);
    const uint64_t buckets = bucketCount(candidates);
    const size_t rec = std::max<size_t>(1, kernel.terms.size());
    auto alloc = [&](size_t bytes) {
      CUdeviceptr p = 0;
      check(api().p_cuMemAlloc(&p, std::max<size_t>(bytes, 16)), "cuMemAlloc");
      allocs.push_back(p);
      return p;
    };
    const int batch = params.launchesPerBatch;
    const uint64_t memBytes = std::max<uint64_t>(1, kernel.globals.size()) * region;
    CUdeviceptr mem = 0;
    if (kernel.surfaceMap) {
      proxies.allocateExportable(memBytes, dev);
      mem = proxies.base;
    } else {
      mem = alloc(memBytes);
    }
    proxies.bind(kernel, mem, region, n, stride, dev);
    CUdeviceptr surfMap = 0;
    if (kernel.surfaceMap) {
      surfMap = alloc(proxies.map.size() * 4);
      check(api().p_cuMemcpyHtoD(surfMap, proxies.map.data(), proxies.map.size() * 4), "cuMemcpyHtoD (surface map)");
    }
    // Tensor maps: one record per cell (encoded maps and their boxes), written once for the run.
    CUdeviceptr tmaps = 0;
    if (!kernel.tensorMaps.empty()) {
      tmaps = alloc(n * ptxgen::tmap::recordBytes(kernel.tensorSlots));
      const std::vector<uint8_t> image = encodeTensorBuffer(kernel, n, tmaps, CellLayout{mem, region, stride});
      check(api().p_cuMemcpyHtoD(tmaps, image.data(), image.size()), "cuMemcpyHtoD (tensor maps)");
    }
    std::vector<CUdeviceptr> cfgs;
    for (int b = 0; b < batch; ++b) cfgs.push_back(alloc(ptxgen::cfg::kWords * 8));
    CUdeviceptr res = alloc(n * static_cast<uint64_t>(kernel.resultWords) * 8);
    CUdeviceptr ctr = alloc(grids.counterWords * 4);
    CUdeviceptr hist = alloc(buckets * 8);
    CUdeviceptr smp = alloc((1 + ptxgen::cfg::kSampleCap * rec) * 8);
    CUdeviceptr scr = alloc(static_cast<size_t>(params.scratchMemorySize) * 4);
    check(api().p_cuMemsetD8(hist, 0, buckets * 8), "cuMemsetD8");
    check(api().p_cuMemsetD8(smp, 0, (1 + ptxgen::cfg::kSampleCap * rec) * 8), "cuMemsetD8");
    check(api().p_cuMemsetD8(scr, 0, static_cast<size_t>(params.scratchMemorySize) * 4), "cuMemsetD8");
    CUstream stream = nullptr;
    check(api().p_cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    std::mt19937_64 rng(params.seed);
    std::vector<std::vector<uint64_t>> hostCfg(static_cast<size_t>(batch));
    const uint64_t launchesWanted = std::max<uint64_t>(1, (params.iterations + n - 1) / n);
    auto t0 = std::chrono::steady_clock::now();
    while (r.launches < launchesWanted) {
      const int thisBatch =
          static_cast<int>(std::min<uint64_t>(static_cast<uint64_t>(batch), launchesWanted - r.launches));
      for (int b = 0; b < thisBatch; ++b) {
        hostCfg[b] = buildConfig(kernel, params, columns, candidates, rng);
        check(api().p_cuMemcpyHtoDAsync(cfgs[b], hostCfg[b].data(), hostCfg[b].size() * 8, stream),
              "cuMemcpyHtoDAsync");
      }
      for (int b = 0; b < thisBatch; ++b) {
        check(api().p_cuMemsetD32Async(ctr, 0, grids.counterWords, stream), "cuMemsetD32Async");
        check(api().p_cuMemsetD32Async(res, 0, n * static_cast<uint64_t>(kernel.resultWords) * 2, stream),
              "cuMemsetD32Async");
        CUdeviceptr initArgs0 = mem, initArgs1 = cfgs[b], initArgs2 = tmaps;
        void* initArgs[] = {&initArgs0, &initArgs1, &initArgs2};  // p_tmap only with tensor maps
        unsigned initGrid = static_cast<unsigned>(std::min<uint64_t>(4096, (n + 255) / 256));
        check(api().p_cuLaunchKernel(initFn, initGrid, 1, 1, 256, 1, 1, 0, stream, initArgs, nullptr),
              "api().p_cuLaunchKernel(init)");
        // Fixed parameters, then the surface/texture handles, the surface map and the tensor buffer.
        std::vector<uint64_t> argValues = {mem, cfgs[b], res, ctr, hist, smp, scr};
        argValues.insert(argValues.end(), proxies.params.begin(), proxies.params.end());
        if (kernel.surfaceMap) argValues.push_back(surfMap);
        if (!kernel.tensorMaps.empty()) argValues.push_back(tmaps);
        std::vector<void*> args;
        for (auto& v : argValues) args.push_back(&v);
        // The stress kernel, then its dependent right after it in the same stream (programmatic dependent
        // launch): the dependent may start once every CTA of the primary grid has executed
        // griddepcontrol.launch_dependents or exited (PTX ISA 9.2 §9.7.13.13), and it ends with
        // griddepcontrol.wait, so the next launch's resets and init follow both grids.
        auto launch = [&](CUfunction f, uint64_t ctas, bool programmatic, const char* what) {
          CUlaunchConfig lc{};
          lc.gridDimX = static_cast<unsigned>(ctas);
          lc.gridDimY = lc.gridDimZ = 1;
          lc.blockDimX = static_cast<unsigned>(kernel.blockDim);
          lc.blockDimY = lc.blockDimZ = 1;
          lc.hStream = stream;
          CUlaunchAttribute attrs[2] = {};
          unsigned count = 0;
          if (kernel.clustered) {
            attrs[count].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
            attrs[count].value.clusterDim.x = clusterDim;
            attrs[count].value.clusterDim.y = attrs[count].value.clusterDim.z = 1;
            ++count;
          }
          if (programmatic) {
            attrs[count].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
            attrs[count].value.programmaticStreamSerializationAllowed = 1;
            ++count;
          }
          lc.attrs = count > 0 ? attrs : nullptr;
          lc.numAttrs = count;
          check(api().p_cuLaunchKernelEx(&lc, f, args.data(), nullptr), what);
        };
        launch(fn, grids.primaryCtas, false, "cuLaunchKernelEx");
        if (dependentFn != nullptr)
          launch(dependentFn, grids.dependentCtas, true, "cuLaunchKernelEx (dependent kernel, programmatic)");
      }
      // Watchdog: poll until the batch is done or the wall-clock bound passes.
      auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(params.launchTimeoutMs);
      CUresult q;
      while ((q = api().p_cuStreamQuery(stream)) == CUDA_ERROR_NOT_READY) {
        if (std::chrono::steady_clock::now() > deadline) {
          resetNeeded = true;
          throw CudaError("watchdog: a batch of " + std::to_string(thisBatch) + " launch(es) did not finish within " +
                          std::to_string(params.launchTimeoutMs) + " ms");
        }
        std::this_thread::sleep_for(std::chrono::microseconds(50));
      }
      check(q, "kernel execution");
      if (gProgressFd >= 0 && write(gProgressFd, ".", 1) < 0) gProgressFd = -1;
      r.launches += static_cast<uint64_t>(thisBatch);
      r.instances += static_cast<uint64_t>(thisBatch) * n;
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::vector<uint64_t> hb(buckets), sb(1 + ptxgen::cfg::kSampleCap * rec);
    check(api().p_cuMemcpyDtoH(hb.data(), hist, hb.size() * 8), "cuMemcpyDtoH");
    check(api().p_cuMemcpyDtoH(sb.data(), smp, sb.size() * 8), "cuMemcpyDtoH");
    r.histogram = decodeHistogram(kernel, candidates, hb, sb);
    api().p_cuStreamDestroy(stream);
    proxies.release();
    for (auto p : allocs) api().p_cuMemFree(p);
    api().p_cuModuleUnload(mod);
    api().p_cuDevicePrimaryCtxRelease(dev);
    r.status = RunResult::Status::Ok;
  } catch (const CudaError& e) {
    r.status = resetNeeded ? RunResult::Status::TimedOut : RunResult::Status::Error;
    r.reason = e.what();
    // Tear the context down so that a faulted kernel cannot poison the next test. A hung one is
    // left alone: resetting may block behind it (runKernelIsolated kills the process instead).
    if (ctx != nullptr && !resetNeeded) {
      proxies.release();
      api().p_cuDevicePrimaryCtxRelease(dev);
      api().p_cuDevicePrimaryCtxReset(dev);
    }
  }
  return r;
}

#endif

RunResult runKernelIsolated(const ptxgen::Kernel& kernel, const StressParams& params,
                            const std::vector<std::vector<int64_t>>& candidates, DeviceInfo& device) {
  if (!kernel.notRunnable.empty()) return runKernel(kernel, params, candidates);  // skipped with the reason
  int fds[2];
  if (pipe(fds) != 0) {
    device = queryDevice();
    return runKernel(kernel, params, candidates);
  }
  fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    device = queryDevice();
    return runKernel(kernel, params, candidates);
  }
  if (pid == 0) {  // child: run, send {"device","result"} as one JSON text, exit without cleanup
    close(fds[0]);
    gProgressFd = fds[1];
    std::string msg;
    try {
      DeviceInfo d = queryDevice();
      RunResult r = runKernel(kernel, params, candidates);
      msg = json{{"device", d.toJson()}, {"result", toJson(r)}}.dump(-1, ' ', false,
                                                                     nlohmann::json::error_handler_t::replace);
    } catch (const std::exception& e) {
      RunResult r;
      r.reason = e.what();
      msg = json{{"device", DeviceInfo{}.toJson()}, {"result", toJson(r)}}.dump(
          -1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
    msg += "\n";
    size_t off = 0;
    while (off < msg.size()) {
      ssize_t w = write(fds[1], msg.data() + off, msg.size() - off);
      if (w <= 0) break;
      off += static_cast<size_t>(w);
    }
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  std::string data;
  const bool complete = readReply(fds[0], quietBoundMs(params), data);
  close(fds[0]);
  // The child has reported (or overrun): kill it so that a hung teardown cannot block us.
  int status = 0;
  if (waitpid(pid, &status, WNOHANG) == 0) {
    if (!complete) {
      kill(pid, SIGKILL);
    } else {
      auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
      while (waitpid(pid, &status, WNOHANG) == 0 && std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      kill(pid, SIGKILL);
    }
    waitpid(pid, &status, 0);
  }
  RunResult r;
  if (!complete) {
    r.status = RunResult::Status::TimedOut;
    r.reason = "watchdog: the test process did not report within its wall-clock bound and was killed";
    return r;
  }
  try {
    json j = json::parse(data);
    device = deviceInfoFromJson(j.at("device"));
    return runResultFromJson(j.at("result"));
  } catch (const std::exception& e) {
    r.status = RunResult::Status::Error;
    r.reason = std::string("bad report from the test process: ") + e.what();
    return r;
  }
}

int64_t quietBoundMs(const StressParams& params) { return static_cast<int64_t>(params.launchTimeoutMs) + 30000; }

#ifdef PTXMM_HAVE_CUDA
void holdPrimaryContext() {
  if (!api().ok || api().p_cuInit(0) != CUDA_SUCCESS) return;
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  if (api().p_cuDeviceGet(&dev, 0) == CUDA_SUCCESS) (void)api().p_cuDevicePrimaryCtxRetain(&ctx, dev);
}
#else
void holdPrimaryContext() {}
#endif

DeviceSession::DeviceSession(Serve serve) : serve_(std::move(serve)) {}

DeviceSession::~DeviceSession() { restart(); }

void DeviceSession::restart() {
  if (fd_ >= 0) close(fd_);  // the child's read sees EOF and it exits
  fd_ = -1;
  if (pid_ > 0) {
    int status = 0;
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (waitpid(pid_, &status, WNOHANG) == 0 && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    kill(pid_, SIGKILL);  // a hung one (or one still tearing down) is killed
    waitpid(pid_, &status, 0);
  }
  pid_ = -1;
}

bool DeviceSession::start(std::string& why) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
    why = std::string("cannot create the session socket: ") + strerror(errno);
    return false;
  }
  fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    why = std::string("cannot fork the device session: ") + strerror(errno);
    close(sv[0]);
    close(sv[1]);
    return false;
  }
  if (pid == 0) {  // child: serve requests (one JSON line each) until the parent closes its end
    close(sv[0]);
    gProgressFd = sv[1];
    holdPrimaryContext();
    FILE* in = fdopen(dup(sv[1]), "r");
    char* line = nullptr;
    size_t cap = 0;
    while (in != nullptr && getline(&line, &cap, in) > 0) {
      json reply;
      try {
        reply = serve_(json::parse(line));
      } catch (const std::exception& e) {
        reply = json{{"error", e.what()}};
      }
      if (!sendAll(sv[1], reply.dump(-1, ' ', false, json::error_handler_t::replace) + "\n")) break;
    }
    _exit(0);
  }
  close(sv[1]);
  pid_ = pid;
  fd_ = sv[0];
  ++started_;
  return true;
}

std::optional<json> DeviceSession::call(const json& request, int64_t quietMs, std::string& why) {
  if (pid_ <= 0 && !start(why)) return std::nullopt;
  if (!sendAll(fd_, request.dump(-1, ' ', false, json::error_handler_t::replace) + "\n")) {
    why = "the device session process is gone";
    restart();
    return std::nullopt;
  }
  std::string data;
  if (!readReply(fd_, quietMs, data)) {
    why = "watchdog: the device session process did not report within its wall-clock bound (or died) and was killed";
    restart();
    return std::nullopt;
  }
  try {
    return json::parse(data);
  } catch (const std::exception& e) {
    why = std::string("bad report from the device session process: ") + e.what();
    restart();
    return std::nullopt;
  }
}

}  // namespace ptxmm::runner
