"""
Theo Jansen's Strandbeest leg
=============================

Built from its "holy numbers" without trigonometry.

Jansen published the leg's dimensions (the "holy numbers", in centimetres); here they are in
millimetres (x 10). The pins are found by ruler and compass (where two circles about known pins
meet), each link is made from its pins' global positions with ``Mechanism.add_link``, and the
joints name the pins: no body-local coordinates and no law of cosines by hand.

Run: python examples/jansen.py
"""

import matplotlib.pyplot as plt
import numpy as np

import mechsolve as ms
from mechsolve import joints

HOLY_CM = {"a": 38.0, "b": 41.5, "c": 39.3, "d": 40.1, "e": 55.8, "f": 39.4, "g": 36.7,
           "h": 65.7, "i": 49.0, "j": 50.0, "k": 61.9, "l": 7.8, "m": 15.0}
n = {key: 10.0 * value for key, value in HOLY_CM.items()}   # millimetres


def compass(p1, r1, p2, r2, near):
    """Where the circles of radius r1 about p1 and r2 about p2 meet, the point nearer `near`."""
    d = p2 - p1
    dist = np.hypot(*d)
    along = (r1**2 - r2**2 + dist**2) / (2 * dist)
    u = d / dist
    normal = np.array([-u[1], u[0]])
    both = [p1 + along * u + side * np.sqrt(r1**2 - along**2) * normal for side in (1, -1)]
    return min(both, key=lambda p: np.hypot(*(p - near)))


# The crank axle O at the origin, the frame pivot B a to the left and l below, the crank pin A
# at crank angle 0; each further pin from two bars and a rough sketch of where it is (mm).
O = np.array([0.0, 0.0])
B = np.array([-n["a"], -n["l"]])
A = np.array([n["m"], 0.0])
C = compass(A, n["j"], B, n["b"], near=(-250, 300))     # rod j and the triangle's side b
D = compass(A, n["k"], B, n["c"], near=(-270, -450))    # rod k and the rocker c
E = compass(B, n["d"], C, n["e"], near=(-750, 80))      # the triangle's sides d and e
F = compass(E, n["f"], D, n["g"], near=(-590, -280))    # rod f and the foot's side g
P = compass(D, n["i"], F, n["h"], near=(-430, -920))    # the foot's sides i and h: the foot

mech = ms.Mechanism(name="Jansen leg (mm)")
ground = mech.ground
ground.add_point("O", at=O)
ground.add_point("B", at=B)
crank = mech.add_link("crank", O=O, A=A)
rod_j = mech.add_link("rod_j", A=A, C=C)
rod_k = mech.add_link("rod_k", A=A, D=D)
triangle = mech.add_link("triangle", B=B, C=C, E=E)
rocker = mech.add_link("rocker", B=B, D=D)
rod_f = mech.add_link("rod_f", E=E, F=F)
foot = mech.add_link("foot", D=D, F=F, P=P)
for b1, b2, pin in [(ground, crank, "O"), (crank, rod_j, "A"), (crank, rod_k, "A"),
                    (ground, triangle, "B"), (ground, rocker, "B"), (rod_j, triangle, "C"),
                    (rod_k, rocker, "D"), (rocker, foot, "D"), (triangle, rod_f, "E"),
                    (rod_f, foot, "F")]:
    mech.add(joints.Revolute(b1, b2, pin, pin))             # pin names, not coordinates
motor = mech.add(joints.Driver(crank, "angle", 0.0, name="motor"))
print(mech.dof())

motion = mech.sweep(motor, np.linspace(0.0, 2 * np.pi, 361))
path = motion.point(foot, foot.point("P"))
print(f"foot path: stride {np.ptp(path[:, 0]):.1f} mm, lift {np.ptp(path[:, 1]):.1f} mm")

# Check: every bar keeps its holy length over the whole turn, measured between the global paths
# of its pins, each pin followed on one of the bodies that hold it (so the joints are checked
# too); and the foot's path closes after a full turn.
holder = {"O": ground, "A": crank, "B": ground, "C": rod_j, "D": rod_k, "E": rod_f,
          "F": rod_f, "P": foot}
bars = {"m": "OA", "j": "AC", "k": "AD", "b": "BC", "d": "BE", "e": "CE", "c": "BD",
        "f": "EF", "g": "DF", "i": "DP", "h": "FP"}


def pin(name):
    """The global path of pin `name` over the sweep, shape (361, 2)."""
    body = holder[name]
    if body.is_ground:
        return np.broadcast_to(body.point(name), (len(motion), 2))
    return motion.point(body, body.point(name))


length_err = max(float(np.abs(np.linalg.norm(pin(q) - pin(p), axis=1) / n[key] - 1).max())
                 for key, (p, q) in bars.items())
closure = float(np.abs(path[-1] - path[0]).max() / n["h"])
print(f"check: every bar at its holy length to {length_err:.1e} (relative), foot path closed "
      f"to {closure:.1e}")
assert length_err < 1e-12 and closure < 1e-12

# %%
# The leg at a crank angle of 60 degrees and the path its foot P walks over a full turn
# (:func:`mechsolve.plot.draw`; ``plt.show()`` puts the figure on screen).
fig, ax = plt.subplots(figsize=(6, 6))
ms.plot.draw(mech, ax, state=motion.states[60], motion=motion, trace=[(foot, foot.point("P"))])
ax.set_title(f"Jansen's leg (mm): stride {np.ptp(path[:, 0]):.0f}, lift {np.ptp(path[:, 1]):.0f}")
