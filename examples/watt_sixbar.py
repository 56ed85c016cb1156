"""
Watt six-bar
============

A four-bar whose ternary rocker drives a second four-bar loop.

Run: python examples/watt_sixbar.py
"""

import numpy as np

import mechsolve as ms

model = ms.models.watt_sixbar()
mech = model.mechanism
print(mech.dof())
motion = mech.sweep(model.driver, model.values)
out = np.degrees(motion.pose(mech.body("link6"))[:, 2])
print(f"output link swings between {out.min():.2f} and {out.max():.2f} degrees")
print(f"largest residual over the turn: {motion.residuals.max():.1e}")

# Check the geometry from the poses. Each link's length, measured between the pins its
# neighbours hold (the rocker is ternary: pins B, O4 and C); and the two vector loops, from the
# link angles alone: O2 -> A -> B -> O4 and O4 -> C -> D -> O6 (complex numbers). To 1e-12 of
# the link lengths (1 to 3.5): a sweep's poses are exact to round-off.
def pin(body, x, y=0.0):
    """The global path of the point (x, y) of a body, as complex numbers."""
    return motion.point(mech.body(body), (x, y)) @ [1, 1j]


arm = 1.5 * np.exp(2.4j)  # C - O4 in the rocker's frame (its x axis runs B -> O4, 3.5 long)
O4, O6 = 4.0, 7.0 + 1.0j
lengths = [  # (measured, designed)
    (abs(pin("coupler", -1.5)), 1.0),                               # crank O2-A
    (abs(pin("crank", 0.5) - pin("rocker", -1.75)), 3.0),           # coupler A-B
    (abs(pin("coupler", 1.5) - O4), 3.5),                           # rocker B-O4
    (abs(pin("link5", -1.5) - O4), abs(arm)),                       # rocker O4-C
    (abs(pin("coupler", 1.5) - pin("link5", -1.5)), abs(3.5 + arm)),  # rocker B-C
    (abs(pin("rocker", 1.75 + arm.real, arm.imag) - pin("link6", -1.25)), 3.0),  # link5 C-D
    (abs(pin("link5", 1.5) - O6), 2.5),                             # link6 D-O6
]
length_err = max(np.abs(measured - designed).max() for measured, designed in lengths)
z = {name: np.exp(1j * motion.pose(mech.body(name))[:, 2])
     for name in ("crank", "coupler", "rocker", "link5", "link6")}
loop1 = 1.0 * z["crank"] + 3.0 * z["coupler"] + 3.5 * z["rocker"] - O4
loop2 = O4 + arm * z["rocker"] + 3.0 * z["link5"] + 2.5 * z["link6"] - O6
loop_err = max(np.abs(loop1).max(), np.abs(loop2).max())
print(f"check: link lengths kept to {length_err:.1e}, loops closed to {loop_err:.1e}")
assert length_err < 1e-12 and loop_err < 1e-12

# %%
# The six-bar over a turn of its crank: the first loop's ternary rocker drives the second
# loop, and the coupler point of link5 traces its curve as it moves (an animation;
# ``anim.save("watt.gif")`` writes it).
anim = ms.plot.animate(mech, motion, trace=model.trace, frames=36, interval=80)
