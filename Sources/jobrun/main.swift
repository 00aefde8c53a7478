import JobrunCLI

Jobrun.runAndExit()
