# user_code.py is type-checked by tests/test_typing.py, never run or imported
collect_ignore = ["user_code.py"]
