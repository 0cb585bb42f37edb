/**
 * The few distribution functions the experiment statistics need (PostHog calls scipy's):
 * the standard normal's cdf and quantile, Student's t cdf and quantile, and the chi-square
 * survival function. Pure numerics, checked against jstat in distributions.test.ts.
 */

/** erfc(x) to about 1e-15 relative (W. J. Cody's rational approximations, as in most libms). */
function erfc(x: number): number {
  const z = Math.abs(x);
  let result: number;
  if (z < 0.5) {
    // erfc = 1 - erf, erf from its Taylor series (converges fast below 0.5)
    let term = z;
    let sum = z;
    const z2 = z * z;
    for (let n = 1; n < 40; n++) {
      term *= -z2 / n;
      const add = term / (2 * n + 1);
      sum += add;
      if (Math.abs(add) < 1e-17 * Math.abs(sum)) break;
    }
    result = 1 - (2 / Math.sqrt(Math.PI)) * sum;
    return x >= 0 ? result : 2 - result;
  }
  // Continued fraction for erfc (Lentz), accurate for z ≥ 0.5
  const tiny = 1e-300;
  let f = z;
  let c = z;
  let d = 0;
  for (let n = 1; n < 500; n++) {
    const a = n / 2;
    d = z + a * d;
    d = d === 0 ? tiny : d;
    c = z + a / c;
    c = c === 0 ? tiny : c;
    d = 1 / d;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  result = Math.exp(-z * z) / (f * Math.sqrt(Math.PI));
  return x >= 0 ? result : 2 - result;
}

/** P(Z ≤ x) for the standard normal. */
export function normalCdf(x: number, mean = 0, sd = 1): number {
  return 0.5 * erfc(-(x - mean) / (sd * Math.SQRT2));
}

/** P(Z > x): computed directly so that far tails keep their precision. */
export function normalSf(x: number, mean = 0, sd = 1): number {
  return 0.5 * erfc((x - mean) / (sd * Math.SQRT2));
}

/** The standard normal quantile (Acklam's approximation, polished by a Newton step). */
export function normalPpf(p: number, mean = 0, sd = 1): number {
  if (!(p > 0 && p < 1)) {
    if (p === 0) return -Infinity;
    if (p === 1) return Infinity;
    return NaN;
  }
  const a = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
  const b = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
  const c = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
  const low = 0.02425;
  let x: number;
  if (p < low) {
    const q = Math.sqrt(-2 * Math.log(p));
    x = (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  } else if (p <= 1 - low) {
    const q = p - 0.5;
    const r = q * q;
    x = ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) / (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1);
  } else {
    const q = Math.sqrt(-2 * Math.log(1 - p));
    x = -(((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  }
  // One Halley step brings the 1e-9 approximation to machine precision
  const e = normalCdf(x) - p;
  const u = e * Math.sqrt(2 * Math.PI) * Math.exp((x * x) / 2);
  x = x - u / (1 + (x * u) / 2);
  return mean + sd * x;
}

/** ln Γ(x) (Lanczos, g = 7). */
function logGamma(x: number): number {
  const g = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x);
  const y = x - 1;
  let sum = g[0]!;
  for (let i = 1; i < 9; i++) sum += g[i]! / (y + i);
  const t = y + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (y + 0.5) * Math.log(t) - t + Math.log(sum);
}

/** The continued fraction of the regularized incomplete beta (Numerical Recipes' betacf). */
function betaContinuedFraction(a: number, b: number, x: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  d = Math.abs(d) < tiny ? tiny : d;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 1000; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    d = Math.abs(d) < tiny ? tiny : d;
    c = 1 + aa / c;
    c = Math.abs(c) < tiny ? tiny : c;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    d = Math.abs(d) < tiny ? tiny : d;
    c = 1 + aa / c;
    c = Math.abs(c) < tiny ? tiny : c;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-15) break;
  }
  return h;
}

/** I_x(a, b), the regularized incomplete beta function. */
export function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  if (x < (a + 1) / (a + b + 2)) return (front * betaContinuedFraction(a, b, x)) / a;
  return 1 - (front * betaContinuedFraction(b, a, 1 - x)) / b;
}

/** P(T ≤ t) for Student's t with `df` (possibly fractional) degrees of freedom. */
export function studentTCdf(t: number, df: number): number {
  if (!Number.isFinite(df) || df > 1e7) return normalCdf(t);
  const tail = 0.5 * incompleteBeta(df / (df + t * t), df / 2, 0.5);
  return t > 0 ? 1 - tail : tail;
}

/** P(T > |t|)·2 without the cancellation of 1 − cdf for large |t|. */
export function studentTTwoSidedP(t: number, df: number): number {
  if (!Number.isFinite(df) || df > 1e7) return 2 * normalSf(Math.abs(t));
  return incompleteBeta(df / (df + t * t), df / 2, 0.5);
}

/** The quantile of Student's t: Newton's method from the normal quantile, then bisection if it strays. */
export function studentTPpf(p: number, df: number): number {
  if (!(p > 0 && p < 1)) return p === 0 ? -Infinity : p === 1 ? Infinity : NaN;
  if (!Number.isFinite(df) || df > 1e7) return normalPpf(p);
  const density = (t: number) => Math.exp(logGamma((df + 1) / 2) - logGamma(df / 2) - 0.5 * Math.log(df * Math.PI) - ((df + 1) / 2) * Math.log(1 + (t * t) / df));
  let t = normalPpf(p);
  for (let i = 0; i < 100; i++) {
    const step = (studentTCdf(t, df) - p) / density(t);
    t -= step;
    if (!Number.isFinite(t)) break;
    if (Math.abs(step) < 1e-13 * Math.max(1, Math.abs(t))) return t;
  }
  // Bisection: slow but sure (tiny df, extreme p)
  let lo = -1e6;
  let hi = 1e6;
  for (let i = 0; i < 200; i++) {
    const mid = (lo + hi) / 2;
    if (studentTCdf(mid, df) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** Q(a, x) = Γ(a, x)/Γ(a), the regularized upper incomplete gamma function. */
function upperIncompleteGamma(a: number, x: number): number {
  if (x <= 0) return 1;
  const lnFront = -x + a * Math.log(x) - logGamma(a);
  if (x < a + 1) {
    // series for P(a, x)
    let sum = 1 / a;
    let term = sum;
    for (let n = 1; n < 1000; n++) {
      term *= x / (a + n);
      sum += term;
      if (Math.abs(term) < Math.abs(sum) * 1e-16) break;
    }
    return 1 - sum * Math.exp(lnFront);
  }
  // continued fraction for Q(a, x) (Lentz)
  const tiny = 1e-300;
  let b = x + 1 - a;
  let c = 1 / tiny;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < 1000; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    d = Math.abs(d) < tiny ? tiny : d;
    c = b + an / c;
    c = Math.abs(c) < tiny ? tiny : c;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return Math.exp(lnFront) * h;
}

/** P(X > x) for chi-square with `df` degrees of freedom. */
export function chiSquareSf(x: number, df: number): number {
  return upperIncompleteGamma(df / 2, x / 2);
}
