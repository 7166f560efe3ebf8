// GPU runner, one file (pair) per concern:
//   StressParams.def / .hpp   the stress parameters (one table), their JSON and options, the kernel
//                             shape, the per-launch configuration buffer and memory layout
//   Histogram.hpp             candidate values, state keys, histogram decoding
//   Device.hpp                the device fingerprint
//   Results.hpp               a run's outcome and its JSON form
//   TensorMaps.hpp            the tensor maps of a kernel: cuTensorMapEncodeTiled's arguments and
//                             their checks, the tensor buffer, its encoding (with PTXMM_HAVE_CUDA)
//   Launch.hpp                running a kernel through the CUDA driver API under a wall-clock
//                             watchdog (with PTXMM_HAVE_CUDA), in-process or in a child process
//   Driver.hpp, Proxies.hpp   internal: the dlopen'ed driver API and module loading (JIT), surface
//                             and texture objects
// This header gathers the public ones for the runner's users (report/, cli/, tools/ptxmm-hw).
#pragma once

#include "runner/Device.hpp"
#include "runner/Histogram.hpp"
#include "runner/Launch.hpp"
#include "runner/Results.hpp"
#include "runner/StressParams.hpp"
#include "runner/TensorMaps.hpp"
