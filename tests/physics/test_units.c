/* Unit and scale invariance on a 200-sphere pour, with every solver (tests/units_invariance.h). */
#include "units_invariance.h"

int main(int argc, char **argv) { return units_invariance_main(argc, argv, 200); }
