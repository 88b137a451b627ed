"""Aim a cannon with air drag: differentiate through a `while` loop that runs until
the ball lands.

The flight is integrated with RK4 steps while the ball is above the ground (a
loop whose trip count depends on the angle), and the landing point is found on the
cubic through the last step's ends. Everything is a float, so revsrc's derivative runs on the compiled
scalar engine. Newton's method on d range / d angle (second derivative from
revsrc.hessian) finds the angle of longest range, below 45 degrees with drag, and
Newton's method on range - target finds the two angles that hit a target.

    python examples/projectile.py
"""
import math

import revsrc
from _gallery import check, check_gradient, done, figure

SPEED, DRAG, G, DT = 60.0, 0.004, 9.81, 0.02


def accel(vx, vy):
    speed = math.sqrt(vx * vx + vy * vy)
    return -DRAG * speed * vx, -G - DRAG * speed * vy


def hermite(p0, v0, p1, v1, t):
    """The cubic through p0, p1 with slopes v0, v1 (per step) at t = 0, 1; and its slope."""
    t2, t3 = t * t, t * t * t
    value = (2 * t3 - 3 * t2 + 1) * p0 + (t3 - 2 * t2 + t) * v0 + (3 * t2 - 2 * t3) * p1 + (t3 - t2) * v1
    slope = (6 * t2 - 6 * t) * (p0 - p1) + (3 * t2 - 4 * t + 1) * v0 + (3 * t2 - 2 * t) * v1
    return value, slope


def flight_range(angle):
    x, y = 0.0, 0.0
    vx, vy = SPEED * math.cos(angle), SPEED * math.sin(angle)
    x0, y0, vx0, vy0 = x, y, vx, vy
    while y >= 0.0:
        x0, y0, vx0, vy0 = x, y, vx, vy
        ax1, ay1 = accel(vx, vy)
        ax2, ay2 = accel(vx + 0.5 * DT * ax1, vy + 0.5 * DT * ay1)
        ax3, ay3 = accel(vx + 0.5 * DT * ax2, vy + 0.5 * DT * ay2)
        ax4, ay4 = accel(vx + DT * ax3, vy + DT * ay3)
        x += DT * (vx + DT / 6.0 * (ax1 + ax2 + ax3))
        y += DT * (vy + DT / 6.0 * (ay1 + ay2 + ay3))
        vx += DT / 6.0 * (ax1 + 2.0 * ax2 + 2.0 * ax3 + ax4)
        vy += DT / 6.0 * (ay1 + 2.0 * ay2 + 2.0 * ay3 + ay4)
    # The last step crossed the ground: find the crossing on the cubic through its two
    # ends (Newton from the linear guess), so that the range is smooth in the angle
    # even where the number of steps changes.
    t = y0 / (y0 - y)
    for _ in range(4):
        height, slope = hermite(y0, DT * vy0, y, DT * vy, t)
        t -= height / slope
    return hermite(x0, DT * vx0, x, DT * vx, t)[0]


def newton(fun, dfun, x, tol=1e-12):
    for _ in range(30):
        step = fun(x) / dfun(x)
        x -= step
        if abs(step) < tol:
            break
    return x


def main():
    d_range = revsrc.grad(flight_range, backend="engine")       # refused if it could not run there
    d2_range = revsrc.hessian(flight_range)
    check_gradient(flight_range, (0.6,), "gradient against central differences", rtol=1e-5)

    best = newton(d_range, d2_range, 0.7)
    longest = flight_range(best)
    print(f"longest range {longest:.3f} m at {math.degrees(best):.3f} degrees "
          f"(45 degrees: {flight_range(math.pi / 4):.3f} m)")
    check(abs(d_range(best)) < 1e-9 and d2_range(best) < 0, "a maximum of the range")
    check(math.degrees(best) < 45.0, "with drag the best angle is below 45 degrees")

    target = 0.8 * longest
    low = newton(lambda a: flight_range(a) - target, d_range, 0.3)
    high = newton(lambda a: flight_range(a) - target, d_range, 1.2)
    print(f"target {target:.3f} m: hit at {math.degrees(low):.3f} and {math.degrees(high):.3f} degrees")
    check(abs(flight_range(low) - target) < 1e-8 and abs(flight_range(high) - target) < 1e-8,
          "both angles hit the target")

    with figure("projectile") as (fig, ax):
        if fig is not None:
            for angle, label in ((best, "longest"), (low, "low shot"), (high, "high shot")):
                xs, ys = trajectory(angle)
                ax.plot(xs, ys, label=f"{label}: {math.degrees(angle):.1f}°")
            ax.axvline(target, color="0.6", ls=":")
            ax.set_xlabel("x (m)")
            ax.set_ylabel("height (m)")
            ax.legend(fontsize=8)
    done()


def trajectory(angle, dt=0.05):
    """For the figure: the flight, Euler-sampled."""
    x, y, vx, vy = 0.0, 0.0, SPEED * math.cos(angle), SPEED * math.sin(angle)
    xs, ys = [x], [y]
    while y >= 0.0:
        ax, ay = accel(vx, vy)
        vx, vy = vx + dt * ax, vy + dt * ay
        x, y = x + dt * vx, y + dt * vy
        xs.append(x)
        ys.append(y)
    return xs, ys


if __name__ == "__main__":
    main()
