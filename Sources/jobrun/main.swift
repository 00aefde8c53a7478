import JobrunCLI

Jobrun.main()
