#ifndef cbctCudaImage_h
#define cbctCudaImage_h

#include "cbctCudaDataManager.h"

#include <itkImage.h>

namespace cbct
{

/** \class CudaImage
 * \brief An itk::Image whose pixel buffer has a device twin kept by a CudaDataManager.
 *
 * CPU code uses it as any itk::Image: every host access to the buffer (GetBufferPointer(),
 * GetPixelContainer(), iterators, GetPixel) first downloads a stale host copy and then counts as a
 * possible write, so the device copy is re-uploaded before the next device read. CUDA filters ask
 * the manager for device pointers instead, so a chain of CUDA filters never touches the host.
 * Grafting shares the manager along with the pixel container: no copy.
 *
 * The host-access overrides hide, not override, itk::Image's non-virtual accessors: use CudaImage
 * as the template argument of readers, iterators and filters (as ITK's GPU images require too).
 * \ingroup ConeBeamCT
 */
template <typename TPixel, unsigned int VImageDimension = 3>
class ITK_TEMPLATE_EXPORT CudaImage : public itk::Image<TPixel, VImageDimension>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaImage);

  using Self = CudaImage;
  using Superclass = itk::Image<TPixel, VImageDimension>;
  using Pointer = itk::SmartPointer<Self>;
  using ConstPointer = itk::SmartPointer<const Self>;
  using PixelContainer = typename Superclass::PixelContainer;

  itkNewMacro(Self);
  itkTypeMacro(CudaImage, itk::Image);

  template <typename UPixelType, unsigned int UImageDimension = VImageDimension>
  struct Rebind
  {
    using Type = CudaImage<UPixelType, UImageDimension>;
  };

  void
  Allocate(bool initializePixels = false) override
  {
    // A larger buffer replaces the old one, which must not be freed while page-locked.
    const auto * container = Superclass::GetPixelContainer();
    if (!container || this->GetBufferedRegion().GetNumberOfPixels() > container->Capacity())
      m_DataManager->UnpinHostBuffer();
    Superclass::Allocate(initializePixels);
    m_DataManager->SetHostBuffer(Superclass::GetBufferPointer(),
                                 this->GetBufferedRegion().GetNumberOfPixels() * sizeof(TPixel));
  }

  void
  Initialize() override
  {
    m_DataManager->UnpinHostBuffer(); // the pixel container may be freed next
    Superclass::Initialize();
    m_DataManager = CudaDataManager::New(); // the old buffers are gone with the pixel container
  }

  void
  FillBuffer(const TPixel & value)
  {
    m_DataManager->MarkHostModified();
    Superclass::FillBuffer(value);
  }

  TPixel *
  GetBufferPointer() override
  {
    this->HostAccess();
    return Superclass::GetBufferPointer();
  }
  const TPixel *
  GetBufferPointer() const override
  {
    this->HostAccess();
    return Superclass::GetBufferPointer();
  }
  PixelContainer *
  GetPixelContainer()
  {
    this->HostAccess();
    return Superclass::GetPixelContainer();
  }
  const PixelContainer *
  GetPixelContainer() const
  {
    this->HostAccess();
    return Superclass::GetPixelContainer();
  }

  const TPixel &
  GetPixel(const typename Superclass::IndexType & index) const
  {
    this->HostAccess();
    return Superclass::GetPixel(index);
  }
  void
  SetPixel(const typename Superclass::IndexType & index, const TPixel & value)
  {
    this->HostAccess();
    Superclass::SetPixel(index, value);
  }

  /** Shares the pixel container and, from a CudaImage, the data manager. */
  void
  Graft(const itk::DataObject * data) override
  {
    Superclass::Graft(data);
    if (const auto * other = dynamic_cast<const Self *>(data))
      m_DataManager = other->m_DataManager;
    else
      m_DataManager->SetHostBuffer(Superclass::GetBufferPointer(),
                                   this->GetBufferedRegion().GetNumberOfPixels() * sizeof(TPixel));
  }

  CudaDataManager *
  GetCudaDataManager() const
  {
    return m_DataManager;
  }

protected:
  CudaImage() = default;
  ~CudaImage() override = default;

private:
  void
  HostAccess() const
  {
    m_DataManager->SynchronizeHost();
    m_DataManager->MarkHostModified();
  }

  typename CudaDataManager::Pointer m_DataManager = CudaDataManager::New();
};

} // namespace cbct

#endif
