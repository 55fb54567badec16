import ArgumentParser
import PagebenchCLI

/// Entry point: everything else lives in PagebenchCLI, where tests can reach it.
@main
enum PagebenchMain {
    static func main() async {
        let command: any AsyncParsableCommand.Type = PagebenchCommand.self
        await command.main()
    }
}
