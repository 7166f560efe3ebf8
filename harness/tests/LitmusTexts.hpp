// Litmus tests that several test files check: one copy of each text.
#pragma once

namespace test_litmus {

// Message passing with relaxed accesses, in two CTAs: Sometimes under ptx.cat, Never under SC.
inline constexpr const char* kRelaxedMP = R"(PTX MP
{ x = 0; y = 0 }
 P0@cta 0,gpu 0      | P1@cta 1,gpu 0       ;
 st.relaxed.gpu x, 1 | ld.relaxed.gpu r0, y ;
 st.relaxed.gpu y, 1 | ld.relaxed.gpu r1, x ;
exists (1:r0 == 1 /\ 1:r1 == 0)
)";

}  // namespace test_litmus
