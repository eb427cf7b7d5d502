package io.ortex.ep.cpu.linalg;

/** Elementary functions the JDK lacks, in plain Java. Stateless. */
public final class ScalarMath {
    private ScalarMath() {
    }

    /**
     * The error function, to double precision within 1.2e-7 relative (W. J. Cody's rational approximations via
     * the complementary function for large arguments).
     *
     * @param x the argument
     * @return erf(x)
     */
    public static double erf(double x) {
        double ax = Math.abs(x);
        if (ax < 0.5) {
            double t = x * x;
            double p = ((((1.857777061846031526730e-1 * t + 3.161123743870565596947e0) * t
                    + 1.138641541510501556495e2) * t + 3.774852376853020208137e2) * t + 3.209377589138469472562e3);
            double q = ((((t + 2.360129095234412093499e1) * t + 2.440246379344441733056e2) * t
                    + 1.282616526077372275645e3) * t + 2.844236833439170622273e3);
            return x * p / q;
        }
        double r = ax < 4 ? erfcMid(ax) : erfcLarge(ax);
        double e = 1 - r;
        return x < 0 ? -e : e;
    }

    private static double erfcMid(double x) {
        double p = (((((((2.15311535474403846343e-8 * x + 5.64188496988670089180e-1) * x
                + 8.88314979438837594118e0) * x + 6.61191906371416294775e1) * x + 2.98635138197400131132e2) * x
                + 8.81952221241769090411e2) * x + 1.71204761263407058314e3) * x + 2.05107837782607146532e3) * x
                + 1.23033935479799725272e3;
        double q = (((((((x + 1.57449261107098347253e1) * x + 1.17693950891312499305e2) * x
                + 5.37181101862009857509e2) * x + 1.62138957456669018874e3) * x + 3.29079923573345962678e3) * x
                + 4.36261909014324715820e3) * x + 3.43936767414372163696e3) * x + 1.23033935480374942043e3;
        return Math.exp(-x * x) * p / q;
    }

    private static double erfcLarge(double x) {
        if (x > 27) {
            return 0;
        }
        double z = 1 / (x * x);
        double p = ((((1.63153871373020978498e-2 * z + 3.05326634961232344035e-1) * z
                + 3.60344899949804439429e-1) * z + 1.25781726111229246204e-1) * z + 1.60837851487422766278e-2) * z
                + 6.58749161529837803157e-4;
        double q = ((((z + 2.56852019228982242072e0) * z + 1.87295284992346725209e0) * z
                + 5.27905102951428412248e-1) * z + 6.05183413124413191178e-2) * z + 2.33520497626869185443e-3;
        double r = z * p / q;
        r = (0.56418958354775628695 - r) / x;
        return Math.exp(-x * x) * r;
    }
}
