import Foundation
import PagebenchBase

/// A small SVG chart renderer: line, point and range plots on linear, log or categorical axes,
/// drawn as plain inline SVG (no scripts, no fonts or styles fetched from anywhere).
struct SVGChart {
    enum ScaleKind {
        case linear, log
        case categorical([String])
    }

    /// One plotted series: a polyline through its points (or points only), with optional vertical ranges.
    struct Series {
        var name: String
        var points: [(x: Double, y: Double)]
        /// Vertical whiskers (x, low, high), e.g. the min–max of the repetitions.
        var ranges: [(x: Double, low: Double, high: Double)] = []
        var connect = true
        var dashed = false
        /// Points drawn as rings instead of discs (e.g. knee steps that broke an SLO).
        var hollow = false
    }

    /// A horizontal box (for distributions given as percentiles): box from `boxLow` to `boxHigh`,
    /// whiskers to `low` and `high`, a bar at `middle`, ticks at `marks`.
    struct Box {
        var name: String
        var low: Double
        var boxLow: Double
        var middle: Double
        var boxHigh: Double
        var high: Double
        var marks: [Double]
    }

    var id: String
    var title: String
    var xLabel: String
    var yLabel: String
    var xScale: ScaleKind = .linear
    var yScale: ScaleKind = .linear
    var xFormat: (Double) -> String = { NumberText.number($0, digits: 3) }
    var yFormat: (Double) -> String = { NumberText.number($0, digits: 3) }
    var series: [Series] = []
    var boxes: [Box] = []
    /// Shaded x intervals (e.g. warm-up), with a caption.
    var bands: [(from: Double, to: Double, caption: String)] = []
    /// Vertical lines at x positions (e.g. stage boundaries), with a caption.
    var markers: [(x: Double, caption: String)] = []
    /// Horizontal lines at y values (e.g. an SLO's bound), with a caption; inside the y domain.
    var levels: [(y: Double, caption: String)] = []
    /// A second x axis along the top: its label and the tick text for an x value (requests/s
    /// above drains/s).
    var topAxis: (label: String, format: (Double) -> String)?
    var yIncludesZero = true
    /// Linear ticks fall on round multiples of this unit (1 MiB for bytes gives 8 MiB, 16 MiB, … not 19.07 MiB).
    var yTickUnit = 1.0
    var width = 760.0
    var height = 360.0

    static let palette = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#999999"]

    /// Room for the y tick labels: wider for categorical names, so that none is cut.
    private var left: Double {
        guard case .categorical(let labels) = yScale else { return 78 }
        return min(max(78, Double(labels.map(\.count).max() ?? 0) * 7 + 14), width * 0.45)
    }
    /// The legend is a key table under the chart (``key()``), so that no name is cut.
    private let right = 24.0
    private var top: Double { topAxis == nil ? 34 : 70 }
    private let bottom = 52.0

    // MARK: Scales

    struct Scale {
        var kind: ScaleKind
        var tickUnit = 1.0
        var low: Double
        var high: Double
        var start: Double
        var end: Double

        func position(_ value: Double) -> Double {
            let t: Double
            switch kind {
            case .linear:
                t = high == low ? 0.5 : (value - low) / (high - low)
            case .log:
                let l = log10(low)
                let h = log10(high)
                t = h == l ? 0.5 : (log10(max(value, low)) - l) / (h - l)
            case .categorical(let labels):
                // Half a step of padding at each end, so nothing sits on the frame.
                t = (value + 0.5) / Double(max(labels.count, 1))
            }
            return start + (end - start) * t
        }

        func ticks() -> [Double] {
            switch kind {
            case .categorical(let labels):
                return labels.indices.map { Double($0) }
            case .linear:
                let unit = (high - low) >= tickUnit * 2 ? tickUnit : 1
                let span = (high - low) / unit
                guard span > 0 else { return [low] }
                let raw = span / 5
                let power = pow(10, floor(log10(raw)))
                let step = [1.0, 2, 5, 10].map { $0 * power }.first { $0 >= raw } ?? raw
                // A domain near the largest Double (a CSV value of 1.8e308) has no round step.
                guard step.isFinite, step > 0, low.isFinite, high.isFinite else { return [low, high] }
                var ticks: [Double] = []
                var tick = ceil(low / unit / step) * step
                while tick <= high / unit + step * 1e-9, ticks.count <= 20 {
                    ticks.append(abs(tick) < step * 1e-9 ? 0 : tick * unit)
                    tick += step
                }
                return ticks
            case .log:
                var ticks: [Double] = []
                var decade = pow(10, floor(log10(low)))
                let multipliers: [Double] = log10(high / low) < 1.5 ? [1, 2, 5] : [1]
                // `decade` reaches infinity near the largest Double, which is ≤ an infinite high,
                // and stays 0 below the smallest.
                while decade <= high, decade.isFinite, decade > 0 {
                    for multiplier in multipliers where decade * multiplier >= low && decade * multiplier <= high {
                        ticks.append(decade * multiplier)
                    }
                    decade *= 10
                }
                return ticks.isEmpty ? [low, high] : ticks
            }
        }
    }

    private func domain(_ values: [Double], _ kind: ScaleKind, includeZero: Bool) -> (Double, Double) {
        switch kind {
        case .categorical(let labels):
            return (0, Double(max(labels.count - 1, 0)))
        case .log:
            let positive = values.filter { $0 > 0 && $0.isFinite }
            guard let low = positive.min(), let high = positive.max() else { return (1, 10) }
            // Rounded out to decades, kept finite and above zero: 10^309 is not a Double, and
            // 10^-324 is 0, whose decades never grow.
            let l = max(pow(10, floor(log10(low))), .leastNormalMagnitude)
            let h = min(pow(10, ceil(log10(high))), .greatestFiniteMagnitude)
            return (l, h == l ? min(l * 10, .greatestFiniteMagnitude) : h)
        case .linear:
            let finite = values.filter(\.isFinite)
            guard var low = finite.min(), var high = finite.max() else { return (0, 1) }
            if includeZero { low = min(low, 0) }
            if high == low { high = low + (low == 0 ? 1 : abs(low) * 0.1) }
            let padding = min((high - low) * 0.05, .greatestFiniteMagnitude)
            return (
                includeZero && low == 0 ? 0 : max(low - padding, -.greatestFiniteMagnitude),
                min(high + padding, .greatestFiniteMagnitude)
            )
        }
    }

    // MARK: Rendering

    /// The chart as an `<svg>` element with `id`, a `<title>`, axes, gridlines, data and legend.
    func render() -> String {
        let plotRight = width - right
        let plotBottom = height - bottom
        var xs: [Double] =
            series.flatMap { $0.points.map(\.x) } + bands.flatMap { [$0.from, $0.to] } + markers.map(\.x)
        var ys: [Double] =
            series.flatMap { $0.points.map(\.y) + $0.ranges.flatMap { [$0.low, $0.high] } } + levels.map(\.y)
        if !boxes.isEmpty {
            xs += boxes.flatMap { [$0.low, $0.high] }
            ys += boxes.indices.map { Double($0) }
        }
        let (xLow, xHigh) = domain(xs, xScale, includeZero: false)
        let (yLow, yHigh) = domain(ys, yScale, includeZero: yIncludesZero)
        let x = Scale(kind: xScale, low: xLow, high: xHigh, start: left, end: plotRight)
        let y = Scale(kind: yScale, tickUnit: yTickUnit, low: yLow, high: yHigh, start: plotBottom, end: top)

        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" id="\(escape(id))" class="plot" width="\(Int(width))" \
            height="\(Int(height))" viewBox="0 0 \(Int(width)) \(Int(height))" role="img" aria-labelledby="\(escape(id))-title">
            <title id="\(escape(id))-title">\(escape(title))</title>
            <rect x="0" y="0" width="\(Int(width))" height="\(Int(height))" fill="#ffffff"/>
            <text x="\(f(left))" y="20" class="chart-title">\(escape(title))</text>

            """
        for band in bands {
            let from = x.position(band.from)
            let to = x.position(band.to)
            svg +=
                "<rect x=\"\(f(from))\" y=\"\(f(top))\" width=\"\(f(max(0, to - from)))\" height=\"\(f(plotBottom - top))\" fill=\"#eeeeee\"/>\n"
            // A band in the right half is captioned to its left, so that the caption stays inside.
            let captionLeft = from > (left + plotRight) / 2
            svg +=
                "<text x=\"\(f(captionLeft ? from - 4 : to + 4))\" y=\"\(f(top + 14))\" class=\"band\""
                + (captionLeft ? " text-anchor=\"end\"" : "") + ">\(escape(band.caption))</text>\n"
        }
        // Gridlines and tick labels.
        for tick in y.ticks() {
            let position = y.position(tick)
            svg +=
                "<line x1=\"\(f(left))\" y1=\"\(f(position))\" x2=\"\(f(plotRight))\" y2=\"\(f(position))\" class=\"grid\"/>\n"
            let label: String
            if case .categorical(let labels) = yScale { label = labels[Int(tick)] } else { label = yFormat(tick) }
            svg +=
                "<text x=\"\(f(left - 6))\" y=\"\(f(position + 4))\" class=\"tick\" text-anchor=\"end\">\(escape(label))</text>\n"
        }
        for tick in x.ticks() {
            let position = x.position(tick)
            svg +=
                "<line x1=\"\(f(position))\" y1=\"\(f(top))\" x2=\"\(f(position))\" y2=\"\(f(plotBottom))\" class=\"grid\"/>\n"
            let label: String
            if case .categorical(let labels) = xScale { label = labels[Int(tick)] } else { label = xFormat(tick) }
            svg +=
                "<text x=\"\(f(position))\" y=\"\(f(plotBottom + 16))\" class=\"tick\" text-anchor=\"middle\">\(escape(label))</text>\n"
        }
        if let topAxis {
            for tick in x.ticks() {
                svg +=
                    "<text x=\"\(f(x.position(tick)))\" y=\"\(f(top - 6))\" class=\"tick\" text-anchor=\"middle\">\(escape(topAxis.format(tick)))</text>\n"
            }
            svg +=
                "<text x=\"\(f((left + plotRight) / 2))\" y=\"\(f(top - 24))\" class=\"axis-label\" text-anchor=\"middle\">\(escape(topAxis.label))</text>\n"
        }
        for level in levels {
            let position = y.position(level.y)
            svg +=
                "<line x1=\"\(f(left))\" y1=\"\(f(position))\" x2=\"\(f(plotRight))\" y2=\"\(f(position))\" class=\"level\" stroke=\"#b00020\" stroke-width=\"1.5\" stroke-dasharray=\"8 4\"/>\n"
            svg +=
                "<text x=\"\(f(left + 4))\" y=\"\(f(position - 5))\" class=\"band\" fill=\"#b00020\">\(escape(level.caption))</text>\n"
        }
        // Markers over the gridlines, so that one on a gridline still shows.
        for marker in markers {
            let position = x.position(marker.x)
            svg +=
                "<line x1=\"\(f(position))\" y1=\"\(f(top))\" x2=\"\(f(position))\" y2=\"\(f(plotBottom))\" class=\"marker\" stroke=\"#555555\" stroke-width=\"1\" stroke-dasharray=\"4 3\"/>\n"
            svg +=
                "<text x=\"\(f(position + 3))\" y=\"\(f(top + 12))\" class=\"band\">\(escape(marker.caption))</text>\n"
        }
        svg +=
            "<rect x=\"\(f(left))\" y=\"\(f(top))\" width=\"\(f(plotRight - left))\" height=\"\(f(plotBottom - top))\" class=\"frame\"/>\n"
        svg +=
            "<text x=\"\(f((left + plotRight) / 2))\" y=\"\(f(height - 12))\" class=\"axis-label\" text-anchor=\"middle\">\(escape(xLabel))</text>\n"
        svg +=
            "<text x=\"16\" y=\"\(f((top + plotBottom) / 2))\" class=\"axis-label\" text-anchor=\"middle\" "
            + "transform=\"rotate(-90 16 \(f((top + plotBottom) / 2)))\">\(escape(yLabel))</text>\n"

        // Data.
        for (index, item) in series.enumerated() {
            let colour = Self.palette[index % Self.palette.count]
            let dash = item.dashed || index >= Self.palette.count ? " stroke-dasharray=\"6 3\"" : ""
            svg += "<g class=\"series\" data-name=\"\(escape(item.name))\">\n"
            for range in item.ranges {
                let px = x.position(range.x)
                svg +=
                    "<line x1=\"\(f(px))\" y1=\"\(f(y.position(range.low)))\" x2=\"\(f(px))\" y2=\"\(f(y.position(range.high)))\" stroke=\"\(colour)\" stroke-width=\"1.5\"/>\n"
            }
            let points = item.points.filter { $0.x.isFinite && $0.y.isFinite }
            if item.connect, points.count > 1 {
                let path = points.map { "\(f(x.position($0.x))),\(f(y.position($0.y)))" }.joined(separator: " ")
                svg += "<polyline points=\"\(path)\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"2\"\(dash)/>\n"
            }
            for point in points where points.count <= 60 || !item.connect {
                let paint =
                    item.hollow
                    ? "r=\"4.5\" fill=\"#ffffff\" stroke=\"\(colour)\" stroke-width=\"2\""
                    : "r=\"3.5\" fill=\"\(colour)\""
                svg +=
                    "<circle cx=\"\(f(x.position(point.x)))\" cy=\"\(f(y.position(point.y)))\" \(paint)>"
                    + "<title>\(escape(item.name)): \(escape(xFormat(point.x))), \(escape(yFormat(point.y)))</title></circle>\n"
            }
            svg += "</g>\n"
        }
        for (index, box) in boxes.enumerated() {
            let colour = Self.palette[index % Self.palette.count]
            let centre = y.position(Double(index))
            let half = min(10, (plotBottom - top) / Double(max(boxes.count, 1)) / 3)
            svg += "<g class=\"box\" data-name=\"\(escape(box.name))\">\n"
            svg +=
                "<line x1=\"\(f(x.position(box.low)))\" y1=\"\(f(centre))\" x2=\"\(f(x.position(box.high)))\" y2=\"\(f(centre))\" stroke=\"\(colour)\" stroke-width=\"1.5\"/>\n"
            let boxLeft = x.position(box.boxLow)
            let boxRight = x.position(box.boxHigh)
            svg +=
                "<rect x=\"\(f(boxLeft))\" y=\"\(f(centre - half))\" width=\"\(f(max(1, boxRight - boxLeft)))\" height=\"\(f(2 * half))\" fill=\"\(colour)\" fill-opacity=\"0.35\" stroke=\"\(colour)\"/>\n"
            let middle = x.position(box.middle)
            svg +=
                "<line x1=\"\(f(middle))\" y1=\"\(f(centre - half))\" x2=\"\(f(middle))\" y2=\"\(f(centre + half))\" stroke=\"\(colour)\" stroke-width=\"3\"/>\n"
            for mark in box.marks {
                let position = x.position(mark)
                svg +=
                    "<line x1=\"\(f(position))\" y1=\"\(f(centre - half / 2))\" x2=\"\(f(position))\" y2=\"\(f(centre + half / 2))\" stroke=\"\(colour)\"/>\n"
            }
            svg += "</g>\n"
        }
        return svg + "</svg>\n"
    }

    /// The legend as an HTML table under the chart: a swatch (line, dash, disc or ring) and
    /// the series' whole name, never cut.
    func key() -> String {
        guard !series.isEmpty else { return "" }
        var html = "<table class=\"key\" data-for=\"\(escape(id))\">\n"
        for (index, item) in series.enumerated() {
            let colour = Self.palette[index % Self.palette.count]
            let dash = item.dashed || index >= Self.palette.count ? " stroke-dasharray=\"6 3\"" : ""
            var swatch = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"30\" height=\"12\" viewBox=\"0 0 30 12\">"
            if item.connect {
                swatch +=
                    "<line x1=\"1\" y1=\"6\" x2=\"29\" y2=\"6\" stroke=\"\(colour)\" stroke-width=\"2.5\"\(dash)/>"
            }
            swatch +=
                item.hollow
                ? "<circle cx=\"15\" cy=\"6\" r=\"4\" fill=\"#ffffff\" stroke=\"\(colour)\" stroke-width=\"2\"/>"
                : "<circle cx=\"15\" cy=\"6\" r=\"3.5\" fill=\"\(colour)\"/>"
            html += "<tr><td>\(swatch)</svg></td><td>\(escape(item.name))</td></tr>\n"
        }
        return html + "</table>\n"
    }

    private func f(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        return String(format: "%.1f", value)
    }
}

/// Escapes text for XML/HTML content and attribute values.
func escape(_ text: String) -> String {
    var escaped = ""
    for character in text {
        switch character {
        case "&": escaped += "&amp;"
        case "<": escaped += "&lt;"
        case ">": escaped += "&gt;"
        case "\"": escaped += "&quot;"
        case "'": escaped += "&#39;"
        default: escaped.append(character)
        }
    }
    return escaped
}
