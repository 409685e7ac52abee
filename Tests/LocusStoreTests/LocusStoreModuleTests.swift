import Testing
@testable import LocusStore
