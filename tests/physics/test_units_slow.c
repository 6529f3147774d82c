/* Unit and scale invariance on the 2,000-sphere pour, every case, with every solver
 * (tests/units_invariance.h). */
#include "units_invariance.h"

int main(int argc, char **argv) { return units_invariance_main(argc, argv, 2000, 1); }
