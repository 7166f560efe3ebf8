// Litmus texts shared by the hardware-side tests (ptxgen and runner stages).
#pragma once

namespace ptxmm::hwtesting {

/// A shared-memory MP test (both threads in one CTA): the bank-conflict lanes have cells to target.
inline constexpr const char* kSharedMP = R"(PTX MPs
{ .shared x = 0; .shared y = 0; }
 P0@cta 0,gpu 0      | P1@cta 0,gpu 0 ;
 st.weak x, 1        | ld.acquire.cta r0, y ;
 st.release.cta y, 1 | ld.weak r1, x ;
exists (1:r0 == 1 /\ 1:r1 == 0)
)";

}  // namespace ptxmm::hwtesting
