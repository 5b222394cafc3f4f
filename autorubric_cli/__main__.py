from autorubric_cli.cli.app import main

main()
