import math
import revsrc

def f(x: float, y: float) -> float:
    return math.sin(x) * y + x * x

def g(x: float) -> float:
    return math.exp(-x * x) * math.cos(3.0 * x)

df = revsrc.grad(f)
both = revsrc.value_and_grad(f, argnums=1)
dg = revsrc.grad(g)

def slope(x, y):
    return df(x, y)

def pair(x, y):
    v, grad_y = both(x, y)
    return v * 2.0 + grad_y

def newton(x):
    for _ in range(6):
        x = x - g(x) / dg(x)
    return x

print(f"{slope(0.7, 2.0):.9f} {pair(0.7, 2.0):.9f}")
print(f"{dg(0.3):.9f} {newton(0.4):.9f} {g(newton(0.4)):.1e}")
