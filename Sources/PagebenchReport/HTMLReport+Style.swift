import PagebenchBase
import PagebenchMetrics

extension HTMLReport {
    /// The report's one stylesheet, written inline into its `<style>` (nothing is fetched):
    /// `svg .…` styles the plots ``SVGChart`` draws, `td.better`/`td.worse` the verdicts.
    static let stylesheet = """
        body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 16px auto; max-width: 1800px; padding: 0 16px; color: #1a1a1a; background: #fafafa; }
        h1 { font-size: 24px; margin-bottom: 4px; } h2 { font-size: 18px; margin: 20px 0 6px; } h3 { font-size: 15px; margin: 14px 0 4px; }
        p.meta, p.caption { color: #555; font-size: 13px; margin: 4px 0 8px; }
        p.verdict { font-size: 15px; margin: 6px 0; }
        section { background: #fff; border: 1px solid #ddd; border-radius: 6px; padding: 8px 16px 12px; margin: 0; min-width: 0; }
        section.answer { margin: 12px 0 16px; }
        div.plots { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 720px), 1fr)); gap: 16px; }
        svg.plot { display: block; width: 100%; max-width: 960px; height: auto; }
        svg .chart-title { font-size: 15px; font-weight: 600; fill: #1a1a1a; }
        svg .tick, svg .band { font-size: 12px; fill: #333; }
        svg .axis-label { font-size: 13px; fill: #1a1a1a; }
        svg .grid { stroke: #e4e4e4; stroke-width: 1; } svg .frame { fill: none; stroke: #888; stroke-width: 1; }
        p.empty { color: #8a5a00; background: #fff7e0; padding: 12px; border-radius: 4px; }
        div.scroll { overflow-x: auto; }
        table { border-collapse: collapse; font-size: 13px; background: #fff; }
        th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: right; } th:first-child, td:first-child { text-align: left; }
        table.key { border: none; margin: 4px 0 0; font-size: 13px; } table.key td { border: none; padding: 1px 6px 1px 0; text-align: left; vertical-align: middle; }
        table.headline td { white-space: nowrap; } span.delta { font-size: 11px; } th.group { text-align: left; background: #f0f0f0; }
        td.better { color: #006b3c; } td.worse { color: #b00020; } td.not-comparable { color: #777; font-style: italic; }
        p.verdict.passed strong { color: #006b3c; } p.verdict.failed strong { color: #b00020; } ul.gates { font-size: 13px; color: #333; }
        """
}
