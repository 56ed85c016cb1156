"""URDF texts and helpers shared by the URDF loader tests (tests/test_urdf*.py)."""

from __future__ import annotations

import contextlib
import pathlib
import signal
import threading

DATA = pathlib.Path(__file__).parent / "data"

PENDULUM = '''<robot name="pendulum">
  <link name="base"/><link name="bob"/>
  <joint name="swing" type="revolute">
    <parent link="base"/><child link="bob"/>
    <origin xyz="0 0 1" rpy="0 0 0"/><axis xyz="0 1 0"/>
  </joint>
</robot>'''

BRANCH = ('<robot name="r"><link name="a"/><link name="b"/><link name="c"/>'
          '<joint name="j1" type="revolute"><parent link="a"/><child link="b"/>'
          '<axis xyz="0 0 1"/></joint><joint name="j2" type="prismatic"><parent link="a"/>'
          '<child link="c"/><axis xyz="1 0 0"/><limit lower="-0.5" upper="0.5"/></joint>'
          '</robot>')


def two_joints(first: str, second: str, links: str = "abc") -> str:
    """A robot with links ``links`` and revolute joints j1 and j2 whose bodies (parent,
    child, origin, axis, limit elements) are ``first`` and ``second``."""
    return (f'<robot name="r">{"".join(f"<link name={n!r}/>" for n in links)}'
            f'<joint name="j1" type="revolute">{first}</joint>'
            f'<joint name="j2" type="revolute">{second}</joint></robot>')


#: Valid URDF texts the fuzz tests start from (and their tips: None for the only leaf).
BASES = [((DATA / "ur5.urdf").read_text(), None), ((DATA / "ur5.urdf").read_text(),
                                                    "forearm_link"),
         (PENDULUM, None), (BRANCH, "c"), (BRANCH, "b"),
         (two_joints('<parent link="a"/><child link="b"/><origin xyz="0 0 1" rpy="0.1 0 0"/>'
                     '<axis xyz="0 0 1"/><limit lower="-1" upper="1"/>',
                     '<parent link="b"/><child link="c"/><origin xyz="1 0 0"/>'
                     '<axis xyz="0 1 0"/>'), None)]

#: What every message of the loader looks like: the source (``URDF`` for text, ``URDF file
#: '<path>'`` for a file), then a sentence naming an element (a tag, a named link or joint,
#: or the line and column of an XML fault) or the source as a whole.
MESSAGE = (r"^URDF( file '[^']+')?: .*(<\w+>|joint '|link '|line \d+, column \d+"
           r"|the source is empty|longer than)")


@contextlib.contextmanager
def time_limit(seconds: float):
    """Fail with TimeoutError where the block runs longer than ``seconds`` (POSIX, main
    thread; elsewhere the block just runs)."""
    if not hasattr(signal, "setitimer") or threading.current_thread() is not \
            threading.main_thread():
        yield
        return

    def expire(signum, frame):
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0.0)
        signal.signal(signal.SIGALRM, previous)
