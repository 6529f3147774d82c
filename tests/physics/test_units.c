/* Unit and scale invariance on a 64-sphere pour, one case of each kind, with every solver
 * (tests/units_invariance.h; the 2,000-sphere pour with every case is test_units_slow). */
#include "units_invariance.h"

int main(int argc, char **argv) { return units_invariance_main(argc, argv, 64, 0); }
