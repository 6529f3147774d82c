/* The trajectory tests of unit/test_traj_io.c on several ranks (mpiexec -n 1, 2, 3): the frames of
 * a changing body set written by the ranks that hold the bodies, the events gathered from them. */
#include "unit/test_traj_io.c"
