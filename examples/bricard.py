"""Bricard's line-symmetric 6R linkage: Gruebler says 0 DOF, it moves with 1.

Run: python examples/bricard.py
"""

from mechsolve import models_spatial

model = models_spatial.bricard()
mech = model.mechanism
report = mech.dof()
print(report)
motion = mech.sweep(model.driver, model.values)
path = motion.point(mech.body("link3"))
print(f"swept {len(motion)} poses; link3's origin travels {path[0].round(4)} -> "
      f"{path[-1].round(4)}; largest residual {motion.residuals.max():.1e}")
