/* Umbrella header. */
#ifndef SIGNORINI_H
#define SIGNORINI_H
#include "signorini/error.h"
#include "signorini/la.h"
#include "signorini/options.h"
#include "signorini/scene.h"
#include "signorini/tree.h"
#include "signorini/geometry.h"
#include "signorini/collision.h"
#include "signorini/problem.h"
#include "signorini/cone.h"
#include "signorini/solver.h"
#include "signorini/step.h"
#include "signorini/io.h"
#include "signorini/assemble.h"
#include "signorini/partition.h"
#include "signorini/timing.h"
#endif
