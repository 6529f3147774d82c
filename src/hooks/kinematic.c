/* Kinematic bodies follow their prescribed motions (scene.h, sg_motion): before the collision
 * they take their pose at the step's start and their velocity over the step, which contacts see
 * as the wall's surface velocity; at the end of the step they take their pose at its end, so that
 * every frame and checkpoint shows all bodies at the same time. */
#include "signorini/hooks.h"

static sg_err kinematic_run(sg_hook *h, sg_hook_stage stage, const sg_hook_context *ctx) {
  (void)h;
  const double dt = ctx->t1 - ctx->t0;
  if (stage == SG_HOOK_BEFORE_COLLISION) sg_scene_move_kinematic(ctx->s, ctx->t0, dt);
  else sg_scene_move_kinematic(ctx->s, ctx->t1, dt); /* the velocity the next step starts with */
  return SG_OK;
}

const sg_hook_ops sg_hook_kinematic_ops = {
    .name = "kinematic",
    .mask = SG_HOOK_BEFORE_COLLISION | SG_HOOK_END_OF_STEP,
    .run = kinematic_run,
};
