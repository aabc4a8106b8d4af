// Draws every chart of a rewind report with uPlot. Data comes from the JSON
// block #rewind-data; names reach the page only through textContent (uPlot's
// legend) or canvas text, never as markup. When done, <html> carries
// data-charts-drawn="N/M" so tests and people can see that all charts drew.
(function () {
  "use strict";
  var pageData = JSON.parse(document.getElementById("rewind-data").textContent);
  var figures = document.querySelectorAll("figure.chart");
  var drawn = 0;
  // Tick steps for an axis of integers (window numbers, k, counts): uPlot
  // picks the smallest that leaves room between labels.
  var intIncrs = [];
  for (var p = 1; p <= 1e15; p *= 10) { intIncrs.push(p, 2 * p, 5 * p); }

  function extent(values, extra) {
    var lo = Infinity, hi = -Infinity;
    values.concat(extra).forEach(function (v) {
      if (v !== null && isFinite(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
    });
    return lo <= hi ? [lo, hi] : [0, 1];
  }

  // Scales include the reference lines and marks, so a threshold or a stop
  // outside the data still shows; bars also start at zero. A chart with a
  // yRange shares that scale with the charts it is compared to.
  function yRange(c) {
    var ys = [];
    c.series.forEach(function (s) { ys = ys.concat(s.y); });
    var extra = c.hLines.map(function (h) { return h.Y; });
    if (c.kind === "bar") { extra.push(0); }
    var r = c.yRange ? extent(c.yRange, extra) : extent(ys, extra);
    if (c.yFixed) { return function () { return r; }; }
    return function () { return uPlot.rangeNum(r[0], r[1], 0.1, true); };
  }

  function xRange(c, xs) {
    var marks = c.vMarks.map(function (m) { return m.X; });
    (c.bands || []).forEach(function (b) { marks.push(b.From, b.To); });
    var r = extent(xs, marks);
    var pad = c.kind === "bar" || c.xLabels ? 0.5 : 0;
    if (r[0] === r[1] && pad === 0) { pad = 1; }
    return function () { return [r[0] - pad, r[1] + pad]; };
  }

  function num(v) { return String(+v.toPrecision(6)); }

  // Legend values: empty while the cursor is off the chart, so the legend
  // shows the series names only; "-" where a series has no point.
  function xValue(c) {
    return function (u, v, sidx, idx) {
      if (idx === null || idx === undefined) { return ""; }
      if (v === null || v === undefined) { return "-"; }
      return c.xLabels && c.xLabels[v] !== undefined ? c.xLabels[v] : num(v);
    };
  }

  function yValue(u, v, sidx, idx) {
    if (idx === null || idx === undefined) { return ""; }
    return v === null || v === undefined ? "-" : num(v);
  }

  function seriesOpts(c, xs) {
    var out = [{ label: c.xLabel || "x", value: xValue(c) }];
    c.series.forEach(function (ser, i) {
      var color = ser.color;
      var s = { label: ser.name, stroke: color, width: 2, value: yValue, points: { show: xs.length < 60 } };
      if (c.kind === "bar") {
        // Bars of several series overlap, each narrower than the one before.
        var f = Math.pow(0.6, i);
        s.fill = color + "99";
        s.points = { show: false };
        var bars = { size: [0.8 * f, 80 * f], align: 0 };
        if (c.xColors) {
          // Each bar in the colour of its category (a run), index by index.
          bars.disp = {
            fill: { unit: 3, values: function () { return c.xColors.map(function (x) { return x + "99"; }); } },
            stroke: { unit: 3, values: function () { return c.xColors; } }
          };
        }
        s.paths = uPlot.paths.bars(bars);
      } else if (c.kind === "step") {
        s.paths = uPlot.paths.stepped({ align: 1 });
      } else if (c.kind === "points") {
        s.paths = function () { return null; };
        s.points = { show: true, size: xs.length < 1000 ? 6 : 4, width: 0, fill: color + "cc", stroke: color + "cc" };
      }
      out.push(s);
    });
    return out;
  }

  function axis(label, isInt) {
    var a = { label: label };
    if (isInt) {
      a.incrs = intIncrs;
      a.values = function (u, splits) { return splits.map(function (v) { return String(Math.round(v)); }); };
    }
    return a;
  }

  function xAxis(c) {
    var a = axis(c.xLabel, c.xInt);
    if (c.xLabels) {
      a.splits = function () { return c.xLabels.map(function (_, i) { return i; }); };
      a.values = function (u, splits) {
        return splits.map(function (v) { return c.xLabels[v] === undefined ? "" : c.xLabels[v]; });
      };
    }
    return a;
  }

  // Reference lines and marks, labelled just inside the plot. The axes leave
  // the context right-aligned; the labels set their own alignment so that
  // they start at the line and stay inside.
  function drawRefs(c) {
    return function (u) {
      var ctx = u.ctx, b = u.bbox, px = uPlot.pxRatio;
      ctx.save();
      ctx.lineWidth = 1.5 * px;
      ctx.setLineDash([6 * px, 4 * px]);
      ctx.font = (12 * px) + "px sans-serif";
      ctx.textAlign = "left";
      ctx.textBaseline = "alphabetic";
      ctx.strokeStyle = ctx.fillStyle = "#444";
      c.hLines.forEach(function (h) {
        var y = Math.round(u.valToPos(h.Y, "y", true));
        ctx.beginPath(); ctx.moveTo(b.left, y); ctx.lineTo(b.left + b.width, y); ctx.stroke();
        ctx.fillText(h.Label, b.left + 4 * px, y - 4 * px);
      });
      c.vMarks.forEach(function (m) {
        var x = Math.round(u.valToPos(m.X, "x", true));
        ctx.beginPath(); ctx.moveTo(x, b.top); ctx.lineTo(x, b.top + b.height); ctx.stroke();
        var w = ctx.measureText(m.Label).width;
        // Right of the line, or left of it when it would run off the plot.
        var lx = x + 4 * px + w > b.left + b.width ? x - 4 * px - w : x + 4 * px;
        ctx.fillText(m.Label, lx, b.top + 14 * px);
      });
      ctx.restore();
    };
  }

  // Bands (the fault window) are shaded under the grid and the series, so
  // that neither is hidden; a band of no width still shows as a thin one.
  var bandFill = "rgba(255, 127, 14, 0.16)";
  function drawBands(c) {
    return function (u) {
      var ctx = u.ctx, b = u.bbox, px = uPlot.pxRatio;
      ctx.save();
      ctx.fillStyle = bandFill;
      (c.bands || []).forEach(function (band) {
        var x0 = Math.max(b.left, u.valToPos(band.From, "x", true));
        var x1 = Math.min(b.left + b.width, u.valToPos(band.To, "x", true));
        if (x1 - x0 < 2 * px) { x0 -= px; x1 = x0 + 2 * px; }
        ctx.fillRect(x0, b.top, x1 - x0, b.height);
      });
      ctx.restore();
    };
  }

  function draw(el, c) {
    var width = Math.max(320, el.clientWidth || 800);
    var data = c.series.length ? uPlot.join(c.series.map(function (s) { return [s.x, s.y]; })) : [[]];
    new uPlot({
      width: width,
      height: 320,
      series: seriesOpts(c, data[0]),
      axes: [xAxis(c), axis(c.yLabel, c.yInt)],
      scales: { x: { time: false, range: xRange(c, data[0]) }, y: { range: yRange(c) } },
      hooks: { drawClear: [drawBands(c)], draw: [drawRefs(c)] }
    }, data, el);
  }

  figures.forEach(function (fig) {
    var plot = fig.querySelector(".plot");
    try {
      draw(plot, pageData.charts[Number(fig.getAttribute("data-chart"))]);
      drawn++;
    } catch (e) {
      var p = document.createElement("p");
      p.className = "chart-error";
      p.textContent = "This chart could not be drawn: " + e;
      plot.appendChild(p);
      console.error(e);
    }
  });
  document.documentElement.setAttribute("data-charts-drawn", drawn + "/" + figures.length);
})();
