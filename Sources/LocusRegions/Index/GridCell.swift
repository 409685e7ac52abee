/// One cell of a `ShapeGridLevel`: its entries in one block of memory — a header, the
/// circles, then the other parts (polygons, halves, …) — or nil when it has none.
///
/// Why one block: a query reads a random cell, and its cost is mostly waiting for that
/// memory. One block is one pointer to follow (8 bytes a cell, so the cell table of a level
/// stays in cache) and one run of consecutive lines, which the hardware prefetches; circles
/// apart from the rest let the scan of circles, most entries, run without a branch on the
/// kind of entry.
///
/// Entries move when the block grows or a kind's run shifts (a few hundred bytes): Swift
/// values move bitwise, and entries are only ever read in place during a query.
@usableFromInline
struct GridCell<ID> {
    @usableFromInline var block: UnsafeMutableRawPointer?

    init() { block = nil }

    @usableFromInline struct Header {
        @usableFromInline var circleCount: Int32
        @usableFromInline var shapeCount: Int32
        /// Bytes allocated for the block, header included.
        var byteCapacity: Int32
    }

    @usableFromInline typealias Circle = CircleCellEntry<ID>
    @usableFromInline typealias Shape = ShapeCellEntry<ID>

    /// Where the circles start: after the header, aligned.
    @inlinable static var circleOffset: Int { Self.align(MemoryLayout<Header>.stride, MemoryLayout<Circle>.alignment) }
    /// Where the other entries start, after `circleCount` circles.
    @inlinable @inline(__always)
    static func shapeOffset(circleCount: Int) -> Int {
        align(circleOffset + circleCount * MemoryLayout<Circle>.stride, MemoryLayout<Shape>.alignment)
    }
    @inlinable @inline(__always)
    static func align(_ offset: Int, _ alignment: Int) -> Int { (offset + alignment - 1) & ~(alignment - 1) }
    static var blockAlignment: Int { max(MemoryLayout<Header>.alignment, MemoryLayout<Circle>.alignment, MemoryLayout<Shape>.alignment) }

    /// The cell's circles and other entries, for a query: pointers into the block.
    @inlinable @inline(__always)
    func entries() -> (circles: UnsafeMutablePointer<Circle>, circleCount: Int, shapes: UnsafeMutablePointer<Shape>, shapeCount: Int)? {
        guard let block else { return nil }
        let header = block.assumingMemoryBound(to: Header.self).pointee
        let circleCount = Int(header.circleCount)
        return ((block + Self.circleOffset).assumingMemoryBound(to: Circle.self), circleCount,
                (block + Self.shapeOffset(circleCount: circleCount)).assumingMemoryBound(to: Shape.self), Int(header.shapeCount))
    }

    var circleCount: Int { block.map { Int($0.assumingMemoryBound(to: Header.self).pointee.circleCount) } ?? 0 }
    var shapeCount: Int { block.map { Int($0.assumingMemoryBound(to: Header.self).pointee.shapeCount) } ?? 0 }
    var allocatedBytes: Int { block.map { Int($0.assumingMemoryBound(to: Header.self).pointee.byteCapacity) } ?? 0 }

    mutating func append(circle: Circle) {
        let (circles, shapes) = (circleCount, shapeCount)
        reserve(circles: circles + 1, shapes: shapes)
        let block = block!
        // The other entries move up by one circle first.
        Self.moveShapes(shapes, in: block, fromCircleCount: circles, to: circles + 1)
        ((block + Self.circleOffset).assumingMemoryBound(to: Circle.self) + circles).initialize(to: circle)
        block.assumingMemoryBound(to: Header.self).pointee.circleCount += 1
    }

    mutating func append(shape: Shape) {
        let (circles, shapes) = (circleCount, shapeCount)
        reserve(circles: circles, shapes: shapes + 1)
        let block = block!
        ((block + Self.shapeOffset(circleCount: circles)).assumingMemoryBound(to: Shape.self) + shapes).initialize(to: shape)
        block.assumingMemoryBound(to: Header.self).pointee.shapeCount += 1
    }

    /// Removes the entries of `handle` (at most one of each kind); the block is given back
    /// when it empties. - Returns: how many were removed.
    mutating func remove(handle: Int32) -> Int {
        guard let block else { return 0 }
        var removed = 0
        var circles = circleCount
        let shapes = shapeCount
        let circleStart = (block + Self.circleOffset).assumingMemoryBound(to: Circle.self)
        if Self.remove(handle, from: circleStart, count: circles) {
            // The other entries move down by one circle.
            Self.moveShapes(shapes, in: block, fromCircleCount: circles, to: circles - 1)
            circles -= 1
            block.assumingMemoryBound(to: Header.self).pointee.circleCount -= 1
            removed += 1
        }
        let shapeStart = (block + Self.shapeOffset(circleCount: circles)).assumingMemoryBound(to: Shape.self)
        if Self.remove(handle, from: shapeStart, count: shapes) {
            block.assumingMemoryBound(to: Header.self).pointee.shapeCount -= 1
            removed += 1
        }
        if circleCount == 0 && shapeCount == 0 { deallocate() }
        return removed
    }

    /// Moves the `count` other entries of `block` from where they start after `old` circles
    /// to where they start after `new` (the ranges may overlap).
    private static func moveShapes(_ count: Int, in block: UnsafeMutableRawPointer, fromCircleCount old: Int, to new: Int) {
        let from = (block + shapeOffset(circleCount: old)).assumingMemoryBound(to: Shape.self)
        let to = (block + shapeOffset(circleCount: new)).assumingMemoryBound(to: Shape.self)
        if count > 0 && from != to { to.moveInitialize(from: from, count: count) }
    }

    /// Removes the entry of `handle` from the `count` entries at `start`, if there, the last
    /// entry filling the hole (order carries no meaning). - Returns: whether it was there.
    private static func remove<Test>(_ handle: Int32, from start: UnsafeMutablePointer<CellEntry<Test, ID>>, count: Int) -> Bool {
        guard let at = (0 ..< count).first(where: { start[$0].handle == handle }) else { return false }
        (start + at).deinitialize(count: 1)
        if at != count - 1 { (start + at).moveInitialize(from: start + count - 1, count: 1) }
        return true
    }

    /// Deinitialises every entry and frees the block.
    mutating func deallocate() {
        guard let block else { return }
        let circles = circleCount, shapes = shapeCount
        (block + Self.circleOffset).assumingMemoryBound(to: Circle.self).deinitialize(count: circles)
        (block + Self.shapeOffset(circleCount: circles)).assumingMemoryBound(to: Shape.self).deinitialize(count: shapes)
        block.deallocate()
        self.block = nil
    }

    /// Makes room for `circles` circles and `shapes` other entries, doubling the block when it
    /// is too small; entries keep their places relative to the block's layout.
    private mutating func reserve(circles: Int, shapes: Int) {
        let needed = Self.shapeOffset(circleCount: circles) + shapes * MemoryLayout<Shape>.stride
        if block != nil && needed <= allocatedBytes { return }
        let capacity = max(needed, 2 * allocatedBytes, Self.shapeOffset(circleCount: 3) + MemoryLayout<Shape>.stride)
        precondition(capacity <= Int(Int32.max), "a grid cell holds at most 2 GB of entries")
        let grown = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: Self.blockAlignment)
        let (oldCircles, oldShapes) = (circleCount, shapeCount)
        if let block {
            (grown + Self.circleOffset).assumingMemoryBound(to: Circle.self)
                .moveInitialize(from: (block + Self.circleOffset).assumingMemoryBound(to: Circle.self), count: oldCircles)
            (grown + Self.shapeOffset(circleCount: oldCircles)).assumingMemoryBound(to: Shape.self)
                .moveInitialize(from: (block + Self.shapeOffset(circleCount: oldCircles)).assumingMemoryBound(to: Shape.self), count: oldShapes)
            block.deallocate()
        }
        grown.bindMemory(to: Header.self, capacity: 1)
            .initialize(to: Header(circleCount: Int32(oldCircles), shapeCount: Int32(oldShapes), byteCapacity: Int32(capacity)))
        block = grown
    }
}
