import Foundation
import PagebenchBase

extension VerifyReport {
    /// The table, each broken rule's evidence, the costs by limit: for a terminal.
    var text: String {
        var out =
            "verify \(target) (\(kind)) at \(endpoint): partitions \(partitions.joined(separator: ", ")), limits \(limits.map(String.init).joined(separator: ", "))"
            + (filter.map { ", filter \($0)" } ?? "") + "\n\n"
        let verdictWidth = Verdict.allCases.map(\.rawValue.count).max()!
        let titleWidth = results.map(\.rule.title.count).max() ?? 0
        for result in results {
            out +=
                result.rule.id + "  " + result.verdict.rawValue.padding(verdictWidth) + "  "
                + result.rule.title.padding(titleWidth)
                + "  " + result.note + "\n"
        }
        for result in results where result.verdict == .broken {
            out += "\n\(result.rule.id) broken: \(result.note)\n"
            for line in result.evidence { out += "  " + line + "\n" }
        }
        out +=
            "\ncosts and times by limit (drains one at a time that ended; times are request times summed, rate waits left out):\n"
        out +=
            "limit  drains  pages  items  empty pages with token  extra last requests  wasted per drain  largest token  first item  last item\n"
        for figure in figures {
            out +=
                String(figure.limit).padding(5) + "  " + String(figure.drains).padding(6) + "  "
                + String(figure.pages).padding(5) + "  "
                + String(figure.items).padding(5) + "  " + String(figure.emptyPagesWithToken).padding(22) + "  "
                + String(figure.extraLastRequests).padding(19) + "  "
                + NumberText.fixed(figure.wastedPerDrain, 2).padding(16) + "  "
                + "\(figure.largestTokenBytes) B".padding(13) + "  "
                + Self.milliseconds(figure.secondsToFirstItem).padding(10) + "  "
                + Self.milliseconds(figure.secondsToLastItem) + "\n"
        }
        out += "\n" + summary + (broken ? ": a rule is broken\n" : "\n")
        return out
    }

    /// The same as Markdown tables, for a pull request or an issue.
    var markdown: String {
        var out = "## verify `\(target)` (\(kind))\n\n"
        out +=
            "Partitions \(partitions.joined(separator: ", ")), limits \(limits.map(String.init).joined(separator: ", "))"
        out +=
            (filter.map { ", filter \($0)" } ?? "")
            + ".\n\n| rule | verdict | what | note |\n| --- | --- | --- | --- |\n"
        for result in results {
            out +=
                "| \(result.rule.id) | \(result.verdict.rawValue) | \(result.rule.title) | \(Self.cell(result.note)) |\n"
        }
        for result in results where result.verdict == .broken {
            out +=
                "\n### \(result.rule.id) broken: \(Self.cell(result.note))\n\n```\n"
                + result.evidence.joined(separator: "\n") + "\n```\n"
        }
        out +=
            "\n| limit | drains | pages | items | empty pages with token | extra last requests | wasted per drain | largest token | first item | last item |\n"
        out += "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n"
        for figure in figures {
            out +=
                "| \(figure.limit) | \(figure.drains) | \(figure.pages) | \(figure.items) | \(figure.emptyPagesWithToken) | \(figure.extraLastRequests) | \(NumberText.fixed(figure.wastedPerDrain, 2)) | \(figure.largestTokenBytes) B | \(Self.milliseconds(figure.secondsToFirstItem)) | \(Self.milliseconds(figure.secondsToLastItem)) |\n"
        }
        out += "\n" + summary + "\n"
        return out
    }

    static func cell(_ text: String) -> String {
        text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
    }
}

extension String {
    /// Padded with spaces to `width` characters.
    fileprivate func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
