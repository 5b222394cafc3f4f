// autorubric HTML report: draw the plot specs (computed in Python) with BokehJS.
(function () {
  "use strict";
  var P = Bokeh.Plotting;
  var specs = JSON.parse(document.getElementById("plot-specs").textContent);
  // The title is the figure's <figcaption> (HTML text wraps, a canvas title is cut off), the
  // figure stretches to its grid cell, and the toolbar keeps one button (save as PNG): the
  // plots have no pan or zoom, so "reset" did nothing, and hover needs no button.
  function base(spec, height, extra) {
    var options = { sizing_mode: "stretch_width", height: height, tools: "save", toolbar_location: "above" };
    Object.keys(extra || {}).forEach(function (k) { options[k] = extra[k]; });
    var plot = P.figure(options);
    plot.toolbar.logo = null;
    if (spec.xlabel) plot.xaxis.axis_label = spec.xlabel;
    if (spec.ylabel) plot.yaxis.axis_label = spec.ylabel;
    return plot;
  }
  function hover(plot, tooltips) {
    plot.add_tools(new Bokeh.HoverTool({ tooltips: tooltips, visible: false }));
  }

  function hist(spec) {
    var plot = base(spec, 300);
    var source = new Bokeh.ColumnDataSource({ data: { left: spec.left, right: spec.right, count: spec.count } });
    plot.quad({ left: { field: "left" }, right: { field: "right" }, top: { field: "count" }, bottom: 0,
      source: source, fill_color: "#4a78b5", line_color: "#ffffff" });
    var top = Math.max.apply(null, spec.count.concat([1]));
    // counts of items: whole-number ticks only (never 0.5 items), from 0
    plot.yaxis.ticker = new Bokeh.AdaptiveTicker({ min_interval: 1, num_minor_ticks: 0 });
    if (spec.ci) plot.quad({ left: spec.ci[0], right: spec.ci[1], bottom: 0, top: top, fill_color: "orange", fill_alpha: 0.2, line_alpha: 0 });
    if (spec.mean !== null && spec.mean !== undefined) plot.line({ x: [spec.mean, spec.mean], y: [0, top], line_color: "orange", line_width: 2 });
    hover(plot, [["score", "@left{0.00}–@right{0.00}"], ["items", "@count"]]);
    return plot;
  }

  function hbar(spec) {
    var labels = spec.labels.slice().reverse();
    var plot = base(spec, 70 + 30 * spec.labels.length, { y_range: labels, x_range: spec.x_range || [0, 1] });
    var colors = spec.colors || spec.labels.map(function () { return spec.color; });
    var source = new Bokeh.ColumnDataSource({ data: { label: spec.labels, value: spec.values, lo: spec.lo, hi: spec.hi, n: spec.n, color: colors } });
    plot.hbar({ y: { field: "label" }, right: { field: "value" }, height: 0.6, source: source, fill_color: { field: "color" }, line_color: { field: "color" } });
    if (spec.expected) {  // a tick per bar: the share expected without bias
      var marks = new Bokeh.ColumnDataSource({ data: { label: spec.labels, expected: spec.expected } });
      plot.rect({ x: { field: "expected" }, y: { field: "label" }, width: 0.006, height: 0.85, source: marks, fill_color: "#222222", line_color: "#222222" });
    }
    if (spec.whiskers !== false) plot.add_layout(new Bokeh.Whisker({ source: source, base: { field: "label" }, lower: { field: "lo" }, upper: { field: "hi" }, dimension: "width" }));
    hover(plot, spec.whiskers === false ? [["", "@label"], [spec.value_name, "@value{0.000}"], ["n", "@n"]] : [["", "@label"], [spec.value_name, "@value{0.000}"], ["95% CI", "@lo{0.000}–@hi{0.000}"], ["n", "@n"]]);
    return plot;
  }

  function heatmap(spec) {
    var xs = [], ys = [], colors = [], text = [], ink = [];
    spec.rows.forEach(function (row, i) {
      spec.cols.forEach(function (col, j) {
        ys.push(row); xs.push(col); colors.push(spec.colors[i][j]); text.push(spec.text[i][j]); ink.push(spec.ink[i][j]);
      });
    });
    // x labels are rotated by 0.6 rad: leave room below and, for the first one, to the left
    var longest = Math.max.apply(null, spec.cols.map(function (c) { return String(c).length; }).concat([1]));
    var drop = Math.ceil(Math.sin(0.6) * longest * 7), reach = Math.ceil(Math.cos(0.6) * longest * 7);
    var plot = base(spec, 110 + 44 * spec.rows.length + drop, { x_range: spec.cols, y_range: spec.rows.slice().reverse(),
      min_border_left: reach, min_border_bottom: drop + 40 });
    var source = new Bokeh.ColumnDataSource({ data: { x: xs, y: ys, c: colors, t: text, k: ink } });
    plot.rect({ x: { field: "x" }, y: { field: "y" }, width: 1, height: 1, fill_color: { field: "c" }, line_color: "#ffffff", source: source });
    plot.text({ x: { field: "x" }, y: { field: "y" }, text: { field: "t" }, text_align: "center", text_baseline: "middle", text_font_size: "11px", text_color: { field: "k" }, source: source });
    hover(plot, [["", "@y / @x"], ["value", "@t"]]);
    plot.xaxis.major_label_orientation = 0.6;
    return plot;
  }

  function scatter(spec) {
    var plot = base(spec, 360);
    plot.scatter({ x: spec.x, y: spec.y, size: 6, fill_alpha: 0.5, line_alpha: 0.5, fill_color: "#4a78b5", line_color: "#4a78b5" });
    if (spec.connect) plot.line({ x: spec.x, y: spec.y, line_color: "#4a78b5" });
    if (spec.diagonal) plot.line({ x: spec.diagonal, y: spec.diagonal, line_color: "gray", line_dash: "dashed" });
    return plot;
  }

  var draw = { hist: hist, hbar: hbar, heatmap: heatmap, scatter: scatter };
  var pending = [];
  document.querySelectorAll("figure.plot[data-plot]").forEach(function (el) {
    var spec = specs[el.getAttribute("data-plot")];
    var caption = document.createElement("figcaption");
    caption.textContent = spec.title;
    el.appendChild(caption);
    var canvas = document.createElement("div");
    el.appendChild(canvas);
    pending.push(P.show(draw[spec.kind](spec), canvas));
  });
  Promise.all(pending).then(function () { document.body.setAttribute("data-plots-ready", String(pending.length)); });
})();
