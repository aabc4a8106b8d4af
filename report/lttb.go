package report

import "math"

// MaxPoints is how many points of a line or points series a page draws; a
// longer series is downsampled with LTTB. A few thousand points already
// cover every pixel column of a chart, and each drawn point costs page size.
const MaxPoints = 4000

// LTTB downsamples the points (x[i], y[i]), x ascending and every value
// finite, to n points with Steinarsson's Largest-Triangle-Three-Buckets: it
// keeps the first and last point and, from each of n-2 equal buckets in
// between, the point that makes the largest triangle with the point kept
// before it and the mean of the next bucket. Spikes survive, which plain
// decimation loses. With n < 3 or n >= len(x) the points come back as they
// are.
func LTTB(x, y []float64, n int) ([]float64, []float64) {
	if n < 3 || n >= len(x) {
		return x, y
	}
	outX, outY := make([]float64, 0, n), make([]float64, 0, n)
	outX, outY = append(outX, x[0]), append(outY, y[0])
	every := float64(len(x)-2) / float64(n-2)
	a := 0
	for i := 0; i < n-2; i++ {
		from, to := int(float64(i)*every)+1, int(float64(i+1)*every)+1
		avgX, avgY := mean(x, y, to, min(int(float64(i+2)*every)+1, len(x)))
		best, bestArea := from, -1.0
		for j := from; j < to; j++ {
			area := math.Abs((x[a]-avgX)*(y[j]-y[a]) - (x[a]-x[j])*(avgY-y[a]))
			if area > bestArea {
				best, bestArea = j, area
			}
		}
		outX, outY = append(outX, x[best]), append(outY, y[best])
		a = best
	}
	return append(outX, x[len(x)-1]), append(outY, y[len(y)-1])
}

// mean is the centroid of the points from..to-1.
func mean(x, y []float64, from, to int) (float64, float64) {
	var sx, sy float64
	for j := from; j < to; j++ {
		sx, sy = sx+x[j], sy+y[j]
	}
	k := float64(to - from)
	return sx / k, sy / k
}
