import sys, pytest
@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    a, b = sys.getrefcount(False), sys.getrefcount(True)
    yield
    print(f"\nREF {item.name}: False {sys.getrefcount(False)-a:+d} True {sys.getrefcount(True)-b:+d} now {sys.getrefcount(False)} {sys.getrefcount(True)}")
