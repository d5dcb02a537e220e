import gpujit as gpu


@gpu.jit
def control(a, n):
    i, j = gpu.grid(2)
    if 0 <= i < n and not j >= n:
        a[i, j] = 1
    elif i is not None or j in a:
        pass
    else:
        a[i, j] = -1
    for k in range(0, n, 2):
        if k == 3:
            continue
        while k > 0:
            k -= 1
            if k % 7 == 0:
                break
        else:
            a[k, 0] += 1
    else:
        a[0, 0] = 0
    t = a[i, j]
    t += 1; t -= 1; t *= 2; t /= 2; t //= 3; t %= 5
    t **= 2; t <<= 1; t >>= 1; t &= 255; t |= 1; t ^= 3
    x = y = t if t > 0 else -t
    return x, y
