import ArgumentParser
import PagebenchCLI

/// Entry point: everything else lives in PagebenchCLI, where tests can reach it.
@main
enum PagebenchMain {
    static func main() async {
        await PagebenchCommand.runAsMain()
    }
}
