#include "cbctFDKMemoryPlan.h"

#include "cbctHostMemory.h"

#include <itkMacro.h>

#include <algorithm>
#include <limits>
#include <sstream>

namespace cbct
{

namespace
{
itk::ImageRegion<3>
Rows(const itk::ImageRegion<3> & volume, itk::IndexValueType first, itk::SizeValueType count)
{
  auto slab = volume;
  slab.SetIndex(1, first);
  slab.SetSize(1, count);
  return slab;
}

/** fixed + batch x perProjection, saturating. */
std::uint64_t
Bytes(const FDKMemoryPlan::Cost & cost, std::uint64_t batch)
{
  std::uint64_t product = 0, sum = 0;
  if (__builtin_mul_overflow(cost.perProjection, batch, &product) || __builtin_add_overflow(cost.fixed, product, &sum))
    return std::numeric_limits<std::uint64_t>::max();
  return sum;
}
} // namespace

FDKMemoryPlan
FDKMemoryPlan::Make(const itk::ImageRegion<3> & volume, std::uint64_t projections, std::uint64_t budget,
                    const CostFunction & cost, std::uint64_t batchMultiple)
{
  if (volume.GetNumberOfPixels() == 0 || projections == 0)
    itkGenericExceptionMacro(<< "FDKMemoryPlan: an empty volume (" << volume.GetSize() << ") or no projections");
  FDKMemoryPlan plan;
  plan.m_Projections = projections;
  plan.m_Budget = budget;
  const std::uint64_t smallest = std::min<std::uint64_t>(std::max<std::uint64_t>(batchMultiple, 1), projections);
  const itk::IndexValueType end = volume.GetIndex(1) + static_cast<itk::IndexValueType>(volume.GetSize(1));
  for (itk::IndexValueType y0 = volume.GetIndex(1); y0 < end;)
  {
    const auto rowsLeft = static_cast<itk::SizeValueType>(end - y0);
    const Cost one = cost(Rows(volume, y0, 1));
    if (Bytes(one, smallest) > budget)
    {
      const std::uint64_t needed = SmallestBudget(volume, projections, cost, batchMultiple);
      std::ostringstream message;
      message << "a memory budget of " << HostMemory::Format(budget)
              << " is too small for this reconstruction: its smallest plan (slabs of one row of voxels along y, "
                 "batches of "
              << smallest << " projections) needs " << HostMemory::Format(needed) << " (" << needed << " bytes)";
      itkGenericExceptionMacro(<< message.str());
    }
    // The thickest slab from y0 that fits with the smallest batch: doubling, then bisection.
    itk::SizeValueType fits = 1, fails = rowsLeft + 1;
    for (itk::SizeValueType h = 2; h <= rowsLeft; h *= 2)
    {
      if (Bytes(cost(Rows(volume, y0, h)), smallest) > budget)
      {
        fails = h;
        break;
      }
      fits = h;
    }
    if (fails > rowsLeft && fits < rowsLeft)
    {
      if (Bytes(cost(Rows(volume, y0, rowsLeft)), smallest) <= budget)
        fits = rowsLeft;
      else
        fails = rowsLeft;
    }
    while (fails - fits > 1)
    {
      const itk::SizeValueType middle = fits + (fails - fits) / 2;
      if (Bytes(cost(Rows(volume, y0, middle)), smallest) <= budget)
        fits = middle;
      else
        fails = middle;
    }
    Slab slab;
    slab.region = Rows(volume, y0, fits);
    slab.cost = cost(slab.region);
    plan.m_Slabs.push_back(slab);
    y0 += static_cast<itk::IndexValueType>(fits);
  }
  // The largest batch every slab allows: all projections, or a multiple of the smallest.
  std::uint64_t batch = projections;
  for (const Slab & slab : plan.m_Slabs)
    if (slab.cost.perProjection > 0)
      batch = std::min(batch, (budget - std::min(budget, slab.cost.fixed)) / slab.cost.perProjection);
  if (batch >= projections)
    plan.m_ProjectionsPerBatch = 0;
  else
    plan.m_ProjectionsPerBatch = std::max(smallest, batch / smallest * smallest);
  for (Slab & slab : plan.m_Slabs)
    slab.bytes = Bytes(slab.cost, plan.m_ProjectionsPerBatch > 0 ? plan.m_ProjectionsPerBatch : projections);
  return plan;
}

std::uint64_t
FDKMemoryPlan::SmallestBudget(const itk::ImageRegion<3> & volume, std::uint64_t projections, const CostFunction & cost,
                              std::uint64_t batchMultiple)
{
  const std::uint64_t smallest = std::min<std::uint64_t>(std::max<std::uint64_t>(batchMultiple, 1), projections);
  const itk::IndexValueType end = volume.GetIndex(1) + static_cast<itk::IndexValueType>(volume.GetSize(1));
  std::uint64_t needed = 0;
  for (itk::IndexValueType y = volume.GetIndex(1); y < end; ++y)
    needed = std::max(needed, Bytes(cost(Rows(volume, y, 1)), smallest));
  return needed;
}

std::uint64_t
FDKMemoryPlan::PeakBytes() const
{
  std::uint64_t peak = 0;
  for (const Slab & slab : m_Slabs)
    peak = std::max(peak, slab.bytes);
  return peak;
}

std::string
FDKMemoryPlan::Describe() const
{
  std::ostringstream text;
  itk::SizeValueType thinnest = std::numeric_limits<itk::SizeValueType>::max(), thickest = 0;
  std::uint64_t fewestRows = std::numeric_limits<std::uint64_t>::max(), mostRows = 0;
  itk::SizeValueType volumeRows = 0;
  for (const Slab & slab : m_Slabs)
  {
    thinnest = std::min(thinnest, slab.region.GetSize(1));
    thickest = std::max(thickest, slab.region.GetSize(1));
    fewestRows = std::min(fewestRows, slab.cost.rows);
    mostRows = std::max(mostRows, slab.cost.rows);
    volumeRows += slab.region.GetSize(1);
  }
  text << m_Slabs.size() << " slab" << (m_Slabs.size() == 1 ? "" : "s") << " of ";
  if (thinnest == thickest)
    text << thickest;
  else
    text << thinnest << " to " << thickest;
  text << " of the " << volumeRows << " rows of voxels along y, each reading ";
  if (fewestRows == mostRows)
    text << mostRows;
  else
    text << fewestRows << " to " << mostRows;
  text << " detector rows, ";
  if (m_ProjectionsPerBatch == 0)
    text << "all " << m_Projections << " projections at once";
  else
    text << "in batches of " << m_ProjectionsPerBatch << " of the " << m_Projections << " projections";
  text << "; at most " << HostMemory::Format(this->PeakBytes()) << " of the " << HostMemory::Format(m_Budget) << " budget";
  return text.str();
}

} // namespace cbct
