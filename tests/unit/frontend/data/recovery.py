import gpujit as gpu


@gpu.jit
def broken(a, b=2, **rest):
    x = [1, 2]
    for i in range(3):
        y = lambda: i
        a[i] = i
    with open("f") as fh:
        z = {1: 2}
    if a:
        pass
    elif (b for b in a):
        pass
    else:
        pass
    w = a +
    a.attr = 1
    return a @ b


@gpu.jit
def fine(a):
    a[0] = 1
