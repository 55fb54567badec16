import ArgumentParser
import PagebenchCLI

#if canImport(Glibc)
import Glibc
#endif

/// Entry point: everything else lives in PagebenchCLI, where tests can reach it.
@main
enum PagebenchMain {
    static func main() async {
        // A closed standard output (`pagebench items | head -1`) is a failed write, exit 74
        // (docs/exit-codes.md), not death by SIGPIPE (141).
        signal(SIGPIPE, SIG_IGN)
        await PagebenchCommand.runAsMain()
    }
}
